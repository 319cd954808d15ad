/** What the engine's tests share. */

/**
 * `count` random states of width `w` as a search meets them: each a variation of the one before (a few bytes
 * changed, as siblings differ), and now and then an unrelated one.
 */
export function siblingStates(seed: number, count: number, w: number): Uint8Array[] {
  let x = seed >>> 0 || 1;
  const rnd = () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), (x >>> 0) / 2 ** 32);
  const out: Uint8Array[] = [];
  let s = new Uint8Array(w);
  for (let i = 0; i < count; i++) {
    s = rnd() < 0.1 ? Uint8Array.from({ length: w }, () => Math.floor(rnd() * 256)) : Uint8Array.from(s);
    for (let k = Math.floor(rnd() * 6); k > 0; k--) s[Math.floor(rnd() * w)] = Math.floor(rnd() * 256);
    out.push(s);
  }
  return out;
}
