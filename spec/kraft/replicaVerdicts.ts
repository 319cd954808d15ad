/**
 * Verdicts of the KRaft invariants kept by what they read: every invariant reads only the replicas and
 * the acknowledged values, and the states of a search share those far more than they differ in them
 * (they differ in the messages in flight and the budgets spent: kraft-bench has 115,611 states and
 * 6,270 distinct replicas-and-acknowledgements). For a packed state each verdict is computed once per
 * distinct bytes of those two fields, when first asked for (an invariant after a violated one is never
 * asked, as before). Bounded: emptied when full.
 */
import { equalBytes, hashRegion } from '../layout/bytes.ts';
import { isPacked } from '../layout/index.ts';
import type { RecordType } from '../layout/types.ts';
import type { View } from '../layout/views.ts';
import type { KraftState } from './state.ts';

type Test = (s: KraftState) => boolean;

interface Entry {
  readonly bytes: Uint8Array;
  /** Per test: 1 holds, 0 fails, -1 not computed yet. */
  readonly verdicts: Int8Array;
}

/** Where the fields the invariants read lie in a state layout. */
interface Region {
  readonly replicas: number;
  readonly replicasWidth: number;
  readonly acked: number;
  readonly ackedWidth: number;
}

const ENTRIES_LIMIT = 1 << 16;

export class ReplicaVerdicts {
  private readonly tests: Test[] = [];
  private readonly table = new Map<number, Entry[]>();
  private size = 0;
  private region: Region | null = null;
  private regionOf: RecordType | null = null;
  private lastState: KraftState | null = null;
  private lastEntry: Entry | null = null;

  /** `test`, its verdict on a packed state kept by the state's replicas and acknowledged values. */
  of(test: Test): Test {
    const i = this.tests.length;
    this.tests.push(test);
    return (s) => {
      if (!isPacked(s)) return test(s);
      const e = this.entryOf(s);
      if (e === null) return test(s);
      let v = e.verdicts[i]!;
      if (v < 0) e.verdicts[i] = v = test(s) ? 1 : 0;
      return v === 1;
    };
  }

  private entryOf(s: KraftState): Entry | null {
    if (s === this.lastState) return this.lastEntry;
    const { _t: t, _b: b, _o: o } = s as unknown as View & { _t: RecordType };
    if (t !== this.regionOf) {
      this.regionOf = t;
      const r = t.byName.replicas;
      const a = t.byName.acked;
      this.region = r === undefined || a === undefined ? null : { replicas: r.offset, replicasWidth: r.type.width, acked: a.offset, ackedWidth: a.type.width };
      this.table.clear();
      this.size = 0;
    }
    const region = this.region;
    if (region === null) return null;
    const { replicas, replicasWidth, acked, ackedWidth } = region;
    const h = hashRegion(b, o + replicas, replicasWidth) ^ Math.imul(hashRegion(b, o + acked, ackedWidth), 0x9e3779b1);
    let bucket = this.table.get(h);
    let e: Entry | undefined;
    if (bucket !== undefined) {
      for (const x of bucket) {
        if (equalBytes(x.bytes, 0, b, o + replicas, replicasWidth) && equalBytes(x.bytes, replicasWidth, b, o + acked, ackedWidth)) {
          e = x;
          break;
        }
      }
    } else {
      if (this.size >= ENTRIES_LIMIT) {
        this.table.clear();
        this.size = 0;
      }
      this.table.set(h, (bucket = []));
    }
    if (e === undefined) {
      const bytes = new Uint8Array(replicasWidth + ackedWidth);
      bytes.set(b.subarray(o + replicas, o + replicas + replicasWidth), 0);
      bytes.set(b.subarray(o + acked, o + acked + ackedWidth), replicasWidth);
      bucket.push((e = { bytes, verdicts: new Int8Array(this.tests.length).fill(-1) }));
      this.size++;
    }
    this.lastState = s;
    this.lastEntry = e;
    return e;
  }
}
