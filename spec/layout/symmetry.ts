/**
 * Symmetry on packed states: a permutation of an id domain renames *positions* — map slots keyed by the
 * domain, idSet bits, and fields declared with the domain (anywhere, set elements included) — then
 * re-sorts sets and bags so the image is canonical again. A number stored in a field of another type
 * (an epoch that happens to equal an id) is never renamed, so symmetry is sound for numeric ids too.
 */
import { compareBytes, readCode, writeCode } from './bytes.ts';
import { IdSetType, IdsType, MapType, OptionType, RecordType, ScalarType, SeqType, VariantType, type Key, type LType } from './types.ts';

/** Domain → where each id index goes (`perm[i]` is the new index of id `i`). */
export type Permutations = ReadonlyMap<IdsType, Int32Array>;

let swap = new Uint8Array(64);

/** Writes the image of the value of type `t` at `src[so]` under `perms` to `dst[d]`. */
export function permuteInto(t: LType, src: Uint8Array, so: number, dst: Uint8Array, d: number, perms: Permutations, involves: (t: LType) => boolean): void {
  const w = t.width;
  if (!involves(t)) {
    dst.set(src.subarray(so, so + w), d);
    return;
  }
  if (t instanceof ScalarType) {
    writeCode(dst, d, w, t.permuteCode(readCode(src, so, w), perms));
    return;
  }
  if (t instanceof RecordType) {
    dst.set(src.subarray(so, so + w), d); // tag byte and padding
    for (const f of t.fields) permuteInto(f.type, src, so + f.offset, dst, d + f.offset, perms, involves);
    return;
  }
  if (t instanceof VariantType) {
    permuteInto(t.cases[src[so]!]!, src, so, dst, d, perms, involves);
    return;
  }
  if (t instanceof OptionType) {
    dst[d] = src[so]!;
    if (src[so] === 0) dst.fill(0, d + 1, d + w);
    else permuteInto(t.inner, src, so + 1, dst, d + 1, perms, involves);
    return;
  }
  if (t instanceof MapType) {
    const p = t.domain instanceof IdsType ? perms.get(t.domain) : undefined;
    for (let i = 0; i < t.domain.count; i++) {
      const j = p === undefined ? i : p[i]!;
      if (t.partial) {
        dst[d + j * t.slot] = src[so + i * t.slot]!;
        if (src[so + i * t.slot] === 0) {
          dst.fill(0, d + j * t.slot, d + (j + 1) * t.slot); // an absent key's slot stays zero
          continue;
        }
      }
      permuteInto(t.value, src, so + t.at(i), dst, d + t.at(j), perms, involves);
    }
    return;
  }
  if (t instanceof IdSetType) {
    const p = perms.get(t.domain as IdsType)!;
    const bits = readCode(src, so, w);
    let out = 0;
    for (let i = 0; i < t.domain.count; i++) if ((bits >>> i) & 1) out |= 1 << p[i]!;
    writeCode(dst, d, w, out >>> 0);
    return;
  }
  if (t instanceof SeqType) {
    const { lw, ew } = t;
    const n = readCode(src, so, lw);
    dst.set(src.subarray(so, so + lw), d);
    for (let i = 0; i < n; i++) permuteInto(t.elem, src, so + lw + i * ew, dst, d + lw + i * ew, perms, involves);
    dst.fill(0, d + lw + n * ew, d + w);
    if (t.sorted) sortSlots(dst, d + lw, n, ew);
    return;
  }
  throw new Error(`cannot permute ${t.describe()}`);
}

/** Insertion sort of `n` slots of `ew` bytes by their bytes (sets are small; images are nearly sorted). */
function sortSlots(b: Uint8Array, base: number, n: number, ew: number): void {
  if (swap.length < ew) swap = new Uint8Array(ew);
  for (let i = 1; i < n; i++) {
    let j = i;
    if (compareBytes(b, base + (j - 1) * ew, b, base + j * ew, ew) <= 0) continue;
    swap.set(b.subarray(base + i * ew, base + (i + 1) * ew));
    while (j > 0 && compareBytes(b, base + (j - 1) * ew, swap, 0, ew) > 0) {
      b.copyWithin(base + j * ew, base + (j - 1) * ew, base + j * ew);
      j--;
    }
    b.set(swap.subarray(0, ew), base + j * ew);
  }
}

/** Every type reachable from `t`. */
function typesUnder(t: LType, out: Set<LType> = new Set()): Set<LType> {
  if (out.has(t)) return out;
  out.add(t);
  for (const c of t.children()) typesUnder(c, out);
  return out;
}

/** `involves(t)`: whether a value of type `t` can change under a permutation of one of `domains`. */
export function involvement(domains: ReadonlySet<IdsType>): (t: LType) => boolean {
  const memo = new Map<LType, boolean>();
  const involves = (t: LType): boolean => {
    let r = memo.get(t);
    if (r === undefined) {
      r = (t instanceof IdsType && domains.has(t)) || t.children().some(involves);
      memo.set(t, r);
    }
    return r;
  };
  return involves;
}

/** The image of a layout's bytes under one permutation of one id domain. */
export function permuteBytes(root: LType, bytes: Uint8Array, domain: IdsType, perm: readonly number[]): Uint8Array {
  if (perm.length !== domain.count || new Set(perm).size !== perm.length || perm.some((j) => !(j >= 0 && j < domain.count))) {
    throw new RangeError(`a permutation of ${domain.describe()} lists each index 0..${domain.count - 1} once; got [${perm.join(', ')}]`);
  }
  const out = new Uint8Array(root.width);
  permuteInto(root, bytes, 0, out, 0, new Map([[domain, Int32Array.from(perm)]]), involvement(new Set([domain])));
  return out;
}

/**
 * The symmetry of a model on its layout: each symmetry set of the model names the L.ids domain with the
 * same ids, or some ids of one; every permutation of every set (their product, identity left out) gives
 * one image.
 */
export class LayoutSymmetry {
  private readonly images: Permutations[];
  private readonly involves: (t: LType) => boolean;
  private readonly scratch: Uint8Array;

  constructor(
    readonly root: LType,
    sets: readonly (readonly Key[])[],
  ) {
    const domains = [...typesUnder(root)].filter((t): t is IdsType => t instanceof IdsType);
    // A set naming a whole domain permutes it; a set naming some ids of a domain (the followers of a
    // distinguished leader, say) permutes those ids and leaves the others in place.
    const perSet = sets.map((set) => {
      let matching = domains.filter((d) => sameMembers(d.values, set));
      if (matching.length === 0) matching = domains.filter((d) => set.length > 0 && new Set(set).size === set.length && set.every((id) => d.keyIndex(id) >= 0));
      if (matching.length === 0) {
        const known = domains.map((d) => `${d.name} [${d.values.join(', ')}]`).join('; ') || 'none';
        throw new Error(`the symmetry set [${set.join(', ')}] is not within an id domain of the layout (its L.ids domains: ${known})`);
      }
      return { set, matching };
    });
    this.involves = involvement(new Set(perSet.flatMap((p) => p.matching)));
    let images: Map<IdsType, Int32Array>[] = [new Map()];
    for (const { set, matching } of perSet) {
      const next: Map<IdsType, Int32Array>[] = [];
      for (const perm of permutations(set.length)) {
        for (const base of images) {
          const m = new Map(base);
          for (const d of matching) {
            const p = Int32Array.from(d.values, (_, i) => i);
            set.forEach((id, i) => (p[d.keyIndex(id)] = d.keyIndex(set[perm[i]!]!)));
            m.set(d, p);
          }
          next.push(m);
        }
      }
      images = next;
    }
    this.images = images.filter((m) => [...m.values()].some((p) => p.some((j, i) => j !== i)));
    this.scratch = new Uint8Array(root.width);
  }

  /** How many images each state has (identity left out). */
  get size(): number {
    return this.images.length;
  }

  /** Calls `visit` with each image of the value at `bytes[o]` (one scratch buffer, overwritten each time). */
  forEachImage(bytes: Uint8Array, o: number, visit: (image: Uint8Array) => void): void {
    for (const perms of this.images) {
      permuteInto(this.root, bytes, o, this.scratch, 0, perms, this.involves);
      visit(this.scratch);
    }
  }
}

function sameMembers(a: readonly Key[], b: readonly Key[]): boolean {
  if (a.length !== b.length) return false;
  const s = new Set<Key>(a);
  return b.every((x) => s.has(x));
}

function permutations(n: number): Int32Array[] {
  if (n === 0) return [new Int32Array(0)];
  const out: Int32Array[] = [];
  for (const rest of permutations(n - 1)) {
    for (let i = 0; i <= rest.length; i++) out.push(Int32Array.from([...rest.slice(0, i), n - 1, ...rest.slice(i)]));
  }
  return out;
}
