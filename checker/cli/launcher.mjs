// The process a long kmc command (check, ci, simulate, diff) runs its search under, and the watchdog over
// it. The search runs in a child node process (with a heap sized to the machine), because only another
// process can stop code that never returns: a spec action looping forever blocks every timer and signal
// handler of the process it runs in.
//
// - Signals (SIGINT, SIGTERM, SIGHUP, ...) are forwarded to the child, which stops and prints the stats so
//   far. If it has not exited within GRACE_MS, it is killed and this process prints the last stats the
//   child reported, and exits 4 (incomplete), as the child would have.
// - A time limit the child announces (`deadline`) is enforced the same way, GRACE_MS after it passes.
// - A child that has its verdict (`verdict`) rebuilds the counterexample, which runs the spec's steps
//   again and may take long with slow ones: its time limit then gives it VERDICT_TRACE_MS, not GRACE_MS.
//   If it is killed all the same (or by a signal), this process reports the verdict without a trace, and
//   exits 1 or 3, as the child would have.
// - When this process's own parent dies (npx killed, a CI runner cancelled), it stops the child as for
//   SIGHUP: no kmc process outlives its caller. The child watches this process through the IPC channel
//   and exits if this process is killed outright.
import { spawn } from 'node:child_process';
import { writeSync } from 'node:fs';

const GRACE_MS = 2000;
const PARENT_POLL_MS = 500;
/** How long a child finishing a level for its last checkpoint may go without reporting (writing the files included). */
const FINISHING_QUIET_MS = 30_000;
/** How long past its time limit a child that has its verdict may take to rebuild the counterexample (the spec's steps run again): VERDICT_GRACE_MS of checker/engine/options.ts. */
const VERDICT_TRACE_MS = 60_000;
/**
 * Why a child does not stop, as far as this process can tell: blocked, it says nothing, whether in a step
 * of the spec that never ends or in kmc's own work between two looks at its limits (a table of billions of
 * states grown, a checkpoint written).
 */
const HELD = "a step of the spec, or kmc's own work, held it";
const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGWINCH', 'SIGUSR2'];
const STOPPING = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1, SIGQUIT: 3 };

/**
 * Runs `args` (the kmc command line) in a child node with `nodeArgs` and `env`, and this process ends
 * with the child's exit code.
 */
export function launch(script, args, nodeArgs, env) {
  const json = args.includes('--json');
  const child = spawn(process.execPath, [...nodeArgs, ...process.execArgv, script, ...args], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...env, KMC_LAUNCHER_PID: String(process.pid) },
    detached: process.platform !== 'win32',
  });
  /** The last progress the child reported: { distinct, generated, depth, seconds }. */
  let stats = null;
  let deadlineTimer;
  let graceTimer;
  let finishingTimer;
  let stoppingFor = null;
  let childExited = false;
  /** The verdict the child found, once it said so: { status, property, headline }. */
  let verdict = null;
  /** The time limit the child announced: { at, what }. */
  let deadline = null;

  const end = (why, reason) => {
    if (childExited) return;
    child.kill('SIGKILL');
    childExited = true;
    if (verdict !== null) endWithVerdict(why);
    const seconds = stats ? stats.seconds : 0;
    const message = `${why}; the search was ended from outside${stats ? '' : ' before it reported any progress'}`;
    if (json) {
      writeSync(1, `${JSON.stringify({ status: 'incomplete', reason, message, distinct: stats?.distinct ?? 0, generated: stats?.generated ?? 0, depth: stats?.depth ?? 0, seconds })}\n`);
    } else {
      const counts = stats ? ` Stats so far: ${group(stats.distinct)} distinct states, ${group(stats.generated)} generated, depth ${stats.depth}, ${seconds.toFixed(1)} s.` : '';
      writeSync(1, `Incomplete: ${message}.${counts}\n`);
    }
    process.exit(4);
  };

  /** The child found `verdict` but was ended while rebuilding its counterexample: the verdict stands, without its trace. */
  const endWithVerdict = (why) => {
    const message = `${why}; the search was ended from outside while it rebuilt the counterexample, so no trace is shown`;
    if (json) {
      writeSync(1, `${JSON.stringify({ status: verdict.status, property: verdict.status === 'violation' ? verdict.property : null, message, distinct: stats?.distinct ?? 0, generated: stats?.generated ?? 0, depth: stats?.depth ?? 0, seconds: stats?.seconds ?? 0, trace: null })}\n`);
    } else {
      writeSync(1, `${verdict.headline}. ${message[0].toUpperCase()}${message.slice(1)}.\n`);
    }
    process.exit(verdict.status === 'violation' ? 1 : 3);
  };

  /** The child was asked to stop (`cause` names why); it has GRACE_MS to do so by itself. */
  const stopping = (cause, reason) => {
    if (stoppingFor !== null) return;
    stoppingFor = cause;
    graceTimer = setTimeout(() => end(`stopped by ${cause}, but the search did not return within ${GRACE_MS / 1000} s (${HELD})`, reason), GRACE_MS);
  };

  for (const signal of FORWARDED) {
    process.on(signal, () => {
      if (childExited) return;
      if (signal in STOPPING && stoppingFor !== null) {
        // The second one: quit at once, as the child itself does.
        child.kill('SIGKILL');
        childExited = true;
        process.exit(128 + STOPPING[signal]);
      }
      child.kill(signal);
      if (signal in STOPPING) stopping(signal, 'interrupted');
    });
  }
  if (process.platform !== 'win32') {
    // Ctrl-Z: pause the child with this process, resume it with this process.
    const stop = () => {
      child.kill('SIGSTOP');
      process.removeListener('SIGTSTP', stop);
      process.kill(process.pid, 'SIGTSTP');
    };
    process.on('SIGTSTP', stop);
    process.on('SIGCONT', () => {
      child.kill('SIGCONT');
      process.on('SIGTSTP', stop);
    });
  }

  // kmc ci runs its checks one after another, each announcing its deadline (or none) as it starts and
  // ends: what one check found or reported is not the next one's to print if it has to be ended.
  const forgetLastSearch = () => {
    verdict = null;
    stats = null;
  };

  child.on('message', (m) => {
    if (m === null || typeof m !== 'object') return;
    if (m.kind === 'stats') {
      stats = m;
      // Finishing a level for a last checkpoint: alive as long as it reports progress.
      if (finishingTimer !== undefined) finishingTimer.refresh();
    } else if (m.kind === 'finishing') {
      clearTimeout(graceTimer);
      finishingTimer = setTimeout(() => end('stopped, but the level being finished for a last checkpoint made no progress for 30 s', 'interrupted'), FINISHING_QUIET_MS);
    }
    else if (m.kind === 'verdict') {
      verdict = m;
      // The time limit still holds, with VERDICT_TRACE_MS past it instead of GRACE_MS.
      if (deadline !== null) {
        clearTimeout(deadlineTimer);
        const wait = Math.max(0, deadline.at - Date.now()) + VERDICT_TRACE_MS;
        deadlineTimer = setTimeout(() => end(`${deadline.what} had passed by ${VERDICT_TRACE_MS / 1000} s and the counterexample was not rebuilt (${HELD})`, 'timeLimit'), wait);
        deadlineTimer.unref();
      }
    } else if (m.kind === 'deadline') {
      clearTimeout(deadlineTimer);
      forgetLastSearch();
      deadline = m;
      const wait = Math.max(0, m.at - Date.now()) + GRACE_MS;
      deadlineTimer = setTimeout(() => end(`stopped by ${m.what}, but the search did not return within ${GRACE_MS / 1000} s of it (${HELD})`, 'timeLimit'), wait);
      deadlineTimer.unref();
    } else if (m.kind === 'no-deadline') {
      clearTimeout(deadlineTimer);
      deadline = null;
      forgetLastSearch();
    }
  });

  // The caller (npx, a shell, a CI runner) died: this process now belongs to init. Stop as for SIGHUP.
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent || childExited) return;
    clearInterval(watch);
    child.kill('SIGHUP');
    stopping('the exit of the process that started kmc', 'interrupted');
  }, PARENT_POLL_MS);
  watch.unref();

  child.on('exit', (code, signal) => {
    if (childExited) return;
    childExited = true;
    clearTimeout(graceTimer);
    clearTimeout(deadlineTimer);
    clearTimeout(finishingTimer);
    if (signal !== null) {
      for (const s of FORWARDED) process.removeAllListeners(s);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
}

function group(n) {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+$)/g, ',');
}
