/**
 * Stopping a run from outside: Ctrl-C, or `kill -INT`/`-TERM`/`-HUP` sent to the kmc process. The first
 * signal asks the search to stop and print the stats so far (result: incomplete, exit 4); a second one
 * exits at once (128 + the signal's number, as a shell reports it).
 */
const STOP_SIGNALS = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 } as const;

export function interruptFlag(): () => boolean {
  let interrupted = false;
  for (const [signal, number] of Object.entries(STOP_SIGNALS)) {
    process.on(signal, () => {
      if (interrupted) process.exit(128 + number);
      interrupted = true;
      process.stderr.write(`\nStopping (${signal}): printing the stats so far (send it again to quit at once)\n`);
    });
  }
  return () => interrupted;
}
