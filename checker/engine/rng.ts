/**
 * A small seedable random generator (sfc32): the same seed gives the same simulation on every machine,
 * so every reported violation can be replayed from its seed.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    this.a = 0x9e3779b9;
    this.b = 0x243f6a88;
    this.c = 0xb7e15162;
    this.d = seed >>> 0;
    for (let i = 0; i < 15; i++) this.nextUint32();
  }

  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A whole number in [0, bound). */
  below(bound: number): number {
    return Math.floor((this.nextUint32() / 2 ** 32) * bound);
  }
}

/** A fresh seed when the user gave none. */
export function randomSeed(): number {
  return (Math.random() * 2 ** 32) >>> 0;
}
