/**
 * Where a fingerprint's probe starts in an open-addressing table of `capacity` slots: the fingerprint
 * mapped onto [0, capacity) by multiplication, so a table may grow by half (its capacity need not be a
 * power of two).
 */
export function slotOf(hi: number, lo: number, capacity: number): number {
  return Math.floor(((lo ^ Math.imul(hi, 0x9e3779b1)) >>> 0) * (capacity / 4294967296));
}
