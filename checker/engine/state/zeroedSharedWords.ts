/**
 * Zeroed 32-bit words in shared memory, for an open-addressing table that worker threads probe.
 *
 * Every page is written once here, before the table is used. A fresh buffer's pages are mapped to the
 * kernel's one zero page when first read, and a table reads a slot before it writes one, so each page
 * used to be faulted twice: once to read, then once more to copy it on the first write. That second
 * fault flushes the page from the TLB of every core running the process: with worker threads, an
 * interrupt to the other cores per page (about 21,000 in a TwoPhase rm=8 search with 2 workers, about
 * 150 with the pages written first). Writing them costs one pass over memory the table fills anyway.
 */
export function zeroedSharedWords(length: number): Uint32Array {
  const words = new Uint32Array(new SharedArrayBuffer(length * 4));
  words.fill(0);
  return words;
}
