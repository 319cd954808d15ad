/**
 * Verdicts of the KRaft invariants kept by what they read: every invariant reads only the replicas and
 * the acknowledged values, and the states of a search share those far more than they differ in them
 * (they differ in the messages in flight and the budgets spent: kraft-bench had 115,611 states and
 * 6,270 distinct replicas-and-acknowledgements). For a packed state each verdict is computed once per
 * distinct bytes of those two fields, when first asked for (an invariant after a violated one is never
 * asked, as before). Bounded: emptied when full.
 */
import { BytesMemo } from '../layout/bytesMemo.ts';
import { isPacked } from '../layout/index.ts';
import type { RecordType } from '../layout/types.ts';
import type { View } from '../layout/views.ts';
import type { KraftState } from './state.ts';

type Test = (s: KraftState) => boolean;

/** Per test: 1 holds, 0 fails, -1 not computed yet. */
type Verdicts = Int8Array;

/** Where the fields the invariants read lie in a state layout. */
interface Region {
  readonly replicas: number;
  readonly replicasWidth: number;
  readonly acked: number;
  readonly ackedWidth: number;
}

export class ReplicaVerdicts {
  private readonly tests: Test[] = [];
  private readonly table = new BytesMemo<Verdicts>(() => new Int8Array(this.tests.length).fill(-1));
  private region: Region | null = null;
  private regionOf: RecordType | null = null;
  private lastState: KraftState | null = null;
  private lastVerdicts: Verdicts | null = null;

  /** `test`, its verdict on a packed state kept by the state's replicas and acknowledged values. */
  of(test: Test): Test {
    const i = this.tests.length;
    this.tests.push(test);
    return (s) => {
      if (!isPacked(s)) return test(s);
      const e = this.verdictsOf(s);
      if (e === null) return test(s);
      let v = e[i]!;
      if (v < 0) e[i] = v = test(s) ? 1 : 0;
      return v === 1;
    };
  }

  private verdictsOf(s: KraftState): Verdicts | null {
    if (s === this.lastState) return this.lastVerdicts;
    const { _t: t, _b: b, _o: o } = s as unknown as View & { _t: RecordType };
    if (t !== this.regionOf) {
      this.regionOf = t;
      const r = t.byName.replicas;
      const a = t.byName.acked;
      this.region = r === undefined || a === undefined ? null : { replicas: r.offset, replicasWidth: r.type.width, acked: a.offset, ackedWidth: a.type.width };
      this.table.clear();
    }
    const region = this.region;
    if (region === null) return null;
    const e = this.table.of2(b, o + region.replicas, region.replicasWidth, o + region.acked, region.ackedWidth);
    this.lastState = s;
    this.lastVerdicts = e;
    return e;
  }
}
