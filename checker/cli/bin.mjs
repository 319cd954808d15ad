#!/usr/bin/env node
// Entry point of the `kmc` command. Runs the compiled CLI beside it (dist/), or in a source checkout the
// TypeScript sources through tsx.
//
// V8's default heap limit (about 4 GiB) is below what a big search can use, and V8 fixes the limit when
// the process starts. So `check` and `ci` alone, and only when no limit was chosen, run in a child node
// with a limit sized to the machine: the child gets every signal this process gets, in its own session
// (a terminal's Ctrl-C reaches it once, through here), watches this process through an IPC channel so it
// never outlives it, and its exit code (or signal) becomes this process's.
import { existsSync } from 'node:fs';
import { totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';

const args = process.argv.slice(2);
const command = args.find((a) => !a.startsWith('-'));
const wantMb = Math.floor((totalmem() * 0.75) / 2 ** 20);
const haveMb = getHeapStatistics().heap_size_limit / 2 ** 20;
const limitChosen = /--max-old-space-size/.test(`${process.env.NODE_OPTIONS ?? ''} ${process.execArgv.join(' ')}`);

if ((command === 'check' || command === 'ci') && !limitChosen && process.env.KMC_HEAP_SET === undefined && haveMb < wantMb * 0.9) {
  await relaunch();
} else {
  if (process.env.KMC_LAUNCHER_PID !== undefined) {
    // The launcher holds the other end of the IPC channel: if it is killed outright, stop too (also when
    // that happened while this process was still starting).
    if (!process.connected) process.exit(129);
    process.channel?.unref();
    process.on('disconnect', () => process.exit(129));
  }
  const compiled = new URL('./cli.js', import.meta.url);
  if (existsSync(compiled)) {
    await (await import(compiled.href)).run();
  } else {
    (await import('tsx/esm/api')).register();
    await (await import('./cli.ts')).run();
  }
}

async function relaunch() {
  const { spawn } = await import('node:child_process');
  // A young generation of 4 MB semi-spaces instead of V8's 16 for a heap this large: a search makes
  // short-lived views by the million, and a larger nursery only raised the peak RSS (8 MB against 4: a
  // fifth more on a KRaft run of 10^6 states, 255 MB against 212) at no measurable gain in speed.
  const semiSpace = /--max-semi-space-size/.test(`${process.env.NODE_OPTIONS ?? ''} ${process.execArgv.join(' ')}`) ? [] : ['--max-semi-space-size=4'];
  const child = spawn(process.execPath, [`--max-old-space-size=${wantMb}`, ...semiSpace, ...process.execArgv, process.argv[1], ...args], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, KMC_HEAP_SET: String(wantMb), KMC_LAUNCHER_PID: String(process.pid) },
    detached: process.platform !== 'win32',
  });
  const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGWINCH', 'SIGUSR2'];
  for (const signal of forwarded) process.on(signal, () => child.kill(signal));
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
  child.on('exit', (code, signal) => {
    if (signal !== null) {
      for (const s of forwarded) process.removeAllListeners(s);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
}
