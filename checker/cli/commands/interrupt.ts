/**
 * Stopping a run from outside: Ctrl-C, or `kill -INT`/`-TERM`/`-HUP` sent to the kmc process. The first
 * signal asks the search to stop and print the stats so far (result: incomplete, exit 4); a second one
 * exits at once (128 + the signal's number, as a shell reports it).
 */
const STOP_SIGNALS = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 } as const;

/** The signal that stopped the current run, if one did. */
let stoppedBy: string | null = null;

/** What stopped the run, as a report says it: `SIGINT (Ctrl-C)`, `SIGTERM`. */
export function stopSignalText(): string {
  if (stoppedBy === null) return 'a signal';
  return stoppedBy === 'SIGINT' ? 'SIGINT (Ctrl-C)' : stoppedBy;
}

export function interruptFlag(): () => boolean {
  let interrupted = false;
  stoppedBy = null;
  for (const [signal, number] of Object.entries(STOP_SIGNALS)) {
    process.on(signal, () => {
      if (interrupted) process.exit(128 + number);
      interrupted = true;
      stoppedBy = signal;
      process.stderr.write(`\nStopping (${signal}): printing the stats so far (send it again to quit at once)\n`);
    });
  }
  return () => interrupted;
}

/**
 * Runs a command, then removes the signal handlers it installed: a command's handlers last as long as
 * the command, so a program that calls kmc's main more than once (kmc's tests do) does not pile them up.
 */
export async function withSignalHandlers<T>(run: () => Promise<T>): Promise<T> {
  const before = new Map(Object.keys(STOP_SIGNALS).map((s) => [s, new Set(process.listeners(s as NodeJS.Signals))]));
  try {
    return await run();
  } finally {
    for (const [signal, kept] of before) {
      for (const l of process.listeners(signal as NodeJS.Signals)) if (!kept.has(l)) process.removeListener(signal, l);
    }
  }
}
