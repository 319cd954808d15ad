/**
 * Fingerprint → state id, open addressing over one Uint32Array (hi, lo, id + 1 per slot): the liveness
 * pass needs the id of every successor to store its edge, where the safety search only asks "seen?".
 */
export class StateIds {
  private slots = new Uint32Array(3 * 4096);
  private mask = 4095;
  size = 0;

  get bytes(): number {
    return this.slots.byteLength;
  }

  /** The id of the fingerprint, or -1. */
  get(hi: number, lo: number): number {
    const slots = this.slots;
    for (let i = this.home(hi, lo); ; i = (i + 1) & this.mask) {
      const id1 = slots[3 * i + 2]!;
      if (id1 === 0) return -1;
      if (slots[3 * i] === hi >>> 0 && slots[3 * i + 1] === lo >>> 0) return id1 - 1;
    }
  }

  /** Records a fingerprint not yet present under `id`. */
  put(hi: number, lo: number, id: number): void {
    if ((this.size + 1) * 4 > (this.mask + 1) * 3) this.grow();
    this.place(hi, lo, id);
    this.size++;
  }

  private home(hi: number, lo: number): number {
    return (Math.imul(hi ^ (lo >>> 7), 0x9e3779b1) ^ lo) & this.mask;
  }

  private place(hi: number, lo: number, id: number): void {
    const slots = this.slots;
    let i = this.home(hi, lo);
    while (slots[3 * i + 2] !== 0) i = (i + 1) & this.mask;
    slots[3 * i] = hi;
    slots[3 * i + 1] = lo;
    slots[3 * i + 2] = id + 1;
  }

  private grow(): void {
    const old = this.slots;
    this.mask = this.mask * 2 + 1;
    this.slots = new Uint32Array(3 * (this.mask + 1));
    for (let i = 0; i < old.length; i += 3) if (old[i + 2] !== 0) this.place(old[i]!, old[i + 1]!, old[i + 2]! - 1);
  }
}
