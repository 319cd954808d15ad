/**
 * Symmetry reduction keeps one state for all its renamings, so it is sound only when every property gives
 * the same answer on a state and on each of its images. A spec declares that per property
 * (`{ symmetric: true }`); the declaration cannot be proved, so it is tested on a sample of states: the
 * first states the checker tests, then one in every few thousand, each against one of its images in turn.
 * A property that answers differently is a spec error naming the property, the state and its image.
 */
import { isImmutable, isKeyed, isRecord } from '../../spec/immutable.ts';
import type { Model, Symmetry } from '../../spec/spec.ts';
import type { Property } from '../../invariants/property.ts';
import { LayoutSymmetry } from '../../spec/layout/symmetry.ts';
import { View as PackedView } from '../../spec/layout/views.ts';
import { formatValue } from '../../traces/text.ts';
import { toItfValue } from '../../traces/itf/write.ts';
import { SpecError } from './specError.ts';

/** Every state up to this many is tested, against its images in turn. */
const FIRST_STATES = 1000;
/** After that, one state in this many (a power of two). */
const THEN_EVERY = 4096;
/** A state in the error message is cut after this many characters: the trace shows it whole. */
const STATE_TEXT = 600;

export class SymmetryDeclarationCheck<S> {
  private tested = 0;
  private stepsTested = 0;
  private layoutSymmetry: LayoutSymmetry | null = null;

  constructor(
    private readonly symmetry: Symmetry,
    /** Non-identity renamings of the symmetry sets, for states that are Immutable.js values. */
    private readonly renamings: readonly ReadonlyMap<unknown, unknown>[],
    private readonly properties: readonly Property<S>[],
    /** The step properties, tested on a sample of steps against the step between the two states' images. */
    private readonly steps: readonly Property<S>[] = [],
  ) {}

  static of<S>(model: Model<S>, renamings: readonly ReadonlyMap<unknown, unknown>[]): SymmetryDeclarationCheck<S> | null {
    const properties = model.properties.filter((p) => p.kind === 'always' || p.kind === 'sometimes');
    const steps = model.properties.filter((p) => p.kind === 'everyStep');
    if (renamings.length === 0 || !model.symmetry || properties.length + steps.length === 0) return null;
    return new SymmetryDeclarationCheck(model.symmetry, renamings, properties, steps);
  }

  /** On a sampled step, throws a SpecError when a step property answers differently on it and on its image (both states renamed alike). */
  sampleStep(s: S, t: S): void {
    if (this.steps.length === 0) return;
    const n = this.stepsTested++;
    if (n >= FIRST_STATES && (n & (THEN_EVERY - 1)) !== 0) return;
    const { image, renaming } = this.imageOf(s, n);
    const { image: imageOfT } = this.imageOf(t, n);
    for (const p of this.steps) {
      const here = stepOutcome(p, s, t);
      const there = stepOutcome(p, image, imageOfT);
      if (here === there || here === 'throws') continue;
      const answer = (a: boolean | 'throws') => (a === 'throws' ? 'throws' : a ? 'holds' : 'fails');
      throw new SpecError(
        'property',
        `property ${p.name} is declared symmetric, but it ${answer(here)} on a step and ${answer(there)} on its image under the symmetry (${renaming})`,
        new Error(`step from ${describe(s)} to ${describe(t)}. Symmetry reduction would be unsound: drop { symmetric: true } from ${p.name} (and run without --symmetry), or make it give the same answer for every renaming of the ids`),
      );
    }
  }

  /** On a sampled state, throws a SpecError when a property answers differently on `s` and on an image of it. */
  sample(s: S): void {
    const n = this.tested++;
    if (n >= FIRST_STATES && (n & (THEN_EVERY - 1)) !== 0) return;
    const { image, renaming } = this.imageOf(s, n);
    for (const p of this.properties) {
      // A throw on the state itself is the state's error; one on its image alone is an answer that differs.
      const here = test(p, s);
      const there = outcome(p, image);
      if (here === there) continue;
      const answer = (a: boolean | 'throws') => (a === 'throws' ? 'throws' : a ? 'holds' : 'fails');
      throw new SpecError(
        'property',
        `property ${p.name} is declared symmetric, but it ${answer(here)} on a state and ${answer(there)} on its image under the symmetry (${renaming})`,
        new Error(`state ${describe(s)}; image ${describe(image)}. Symmetry reduction would be unsound: drop { symmetric: true } from ${p.name} (and run without --symmetry), or make it give the same answer for every renaming of the ids`),
      );
    }
  }

  /** The `n`-th image in turn of `s`, and what it renames. */
  private imageOf(s: S, n: number): { image: S; renaming: string } {
    if (s instanceof PackedView) {
      const root = s._t;
      if (this.layoutSymmetry === null || this.layoutSymmetry.root !== root) this.layoutSymmetry = new LayoutSymmetry(root, this.symmetry);
      const k = n % this.layoutSymmetry.size;
      let i = 0;
      let bytes: Uint8Array | null = null;
      this.layoutSymmetry.forEachImage(s._b, s._o, (image) => {
        if (i++ === k) bytes = image.slice();
      });
      return { image: root.wrap(bytes!) as S, renaming: `permutation ${k + 1} of ${this.layoutSymmetry.size} of the ids ${this.symmetry.map((set) => `{${set.join(', ')}}`).join(' × ')}` };
    }
    const rename = this.renamings[n % this.renamings.length]!;
    return { image: renamed(s, rename) as S, renaming: [...rename].map(([from, to]) => `${String(from)} → ${String(to)}`).join(', ') };
  }
}

/** What step property `p` answers on the step from `s` to `t`, a throw included. */
function stepOutcome<S>(p: Property<S>, s: S, t: S): boolean | 'throws' {
  try {
    return p.step!(s, t);
  } catch {
    return 'throws';
  }
}

/** What `p` answers on `s`, a throw included. */
function outcome<S>(p: Property<S>, s: S): boolean | 'throws' {
  try {
    return p.test(s);
  } catch {
    return 'throws';
  }
}

function test<S>(p: Property<S>, s: S): boolean {
  try {
    return p.test(s);
  } catch (e) {
    throw new SpecError('property', `property ${p.name} threw`, e);
  }
}

function describe(s: unknown): string {
  const text = formatValue(toItfValue(s));
  return text.length > STATE_TEXT ? `${text.slice(0, STATE_TEXT)}…` : text;
}

/** An Immutable.js value with every primitive leaf and key that `rename` maps replaced, as the fingerprint renames them. */
function renamed(v: unknown, rename: ReadonlyMap<unknown, unknown>): unknown {
  if (rename.has(v)) return rename.get(v);
  if (isRecord(v)) {
    let out = v;
    for (const [k, x] of Object.entries(v.toObject())) out = out.set(k, renamed(x, rename));
    return out;
  }
  if (isImmutable(v)) {
    const c = v as unknown as { map(f: (x: unknown) => unknown): unknown; mapEntries(f: (e: [unknown, unknown]) => [unknown, unknown]): unknown };
    return isKeyed(v) ? c.mapEntries(([k, x]) => [renamed(k, rename), renamed(x, rename)]) : c.map((x) => renamed(x, rename));
  }
  if (Array.isArray(v)) return v.map((x) => renamed(x, rename));
  return v;
}
