/**
 * Ctrl-C during a search: the first press asks the search to stop and print the stats so far
 * (result: incomplete); a second press exits at once.
 */
export function interruptFlag(): () => boolean {
  let interrupted = false;
  const onSigint = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    process.stderr.write('\nStopping: printing the stats so far (Ctrl-C again to quit at once)\n');
  };
  process.once('SIGINT', onSigint);
  process.on('SIGINT', () => {});
  return () => interrupted;
}
