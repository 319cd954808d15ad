/**
 * Runs a model's code: initial states, successors in a fixed order (action list order, then parameter
 * order), fingerprints under VIEW and SYMMETRY, and property tests. Every strategy (BFS, DFS, simulation,
 * worker threads, trace rebuilding) goes through this one class, so they all see the same successors in
 * the same order, which is what makes counts and traces identical across strategies and worker counts.
 */
import type { Action, ActionParams, Model } from '../../spec/spec.ts';
import type { Property } from '../../invariants/property.ts';
import { Fingerprinter } from './fingerprint.ts';
import { LITTLE_ENDIAN, hash64, hash64Aligned, hashed } from './state/hash64.ts';
import { isPacked } from './state/packed.ts';
import { symmetryRenamings } from './symmetry.ts';
import { View as PackedView } from '../../spec/layout/views.ts';
import { wordsOf } from '../../spec/layout/bytes.ts';
import { LayoutSymmetry } from '../../spec/layout/symmetry.ts';
import { SymmetryDeclarationCheck } from './symmetryDeclaration.ts';
import { LayoutError } from '../../spec/layout/errors.ts';
import { isImmutable } from '../../spec/immutable.ts';
import { SpecError, StepViolation } from './specError.ts';
import { NONDETERMINISM_CAUSES, NondeterminismError } from './traceBuilder.ts';
export { SpecError, StepViolation } from './specError.ts';

/** Spec code threw: where, and with which action and parameters. */

const EMPTY_PARAMS: ActionParams = Object.freeze({});
/**
 * Expansions are made twice, to find a spec that is not deterministic (`successors`): every one while the
 * probes have taken under PROBE_START_MS, then as many as keep the probes' time under PROBE_SHARE of the
 * time since the expander was made, and never fewer than one in PROBE_EVERY. So a small model is probed
 * whole, and a long search spends about one part in a hundred of its time probing, at any speed of step.
 *
 * Searches of 40 that said so, on a grid whose two guards are each false at random one call in 50, 100,
 * 500 or 2,000: of 16×16 states, with the first 64 expansions probed, 40, 37, 20 and 4; with every one
 * while cheap, 40, 40, 33 and 16 (near every search in which a guard came out false at all). Of 64×64
 * states, 40, 38, 13 and 6 against 40 of 40 each.
 */
const PROBE_START_MS = 50;
const PROBE_SHARE = 0.01;
const PROBE_EVERY = 1024;
const NO_BYTES = new Uint8Array(0);

type Guard<S> = (s: S, p: ActionParams) => boolean;
type Effect<S> = (s: S, p: ActionParams) => S;

/** `ordinal` is the position of `params` in the action's parameter enumeration (0 without parameters). */
export type SuccessorVisitor<S> = (next: S, actionIndex: number, params: ActionParams, ordinal: number) => void;

export class Expander<S> {
  readonly actions: readonly Action<S, ActionParams>[];
  /** The invariants (`always`), then the properties of initial states (`initially`): see `firstInitialViolation`. */
  readonly invariants: readonly Property<S>[];
  private readonly alwaysCount: number;
  readonly witnesses: readonly Property<S>[];
  /** Per action: states in which it was enabled at least once, and successors it produced. */
  readonly enabledCount: Float64Array;
  readonly firedCount: Float64Array;
  private readonly renamings: readonly ReadonlyMap<unknown, unknown>[];
  private readonly fingerprinter = new Fingerprinter();
  /** Symmetry of packed states, by their layout (built on the first packed state seen). */
  private layoutSymmetry: LayoutSymmetry | null = null;
  /** Under symmetry reduction, tests the properties' symmetry declarations on a sample of states. */
  private readonly symmetryCheck: SymmetryDeclarationCheck<S> | null;
  hi = 0;
  lo = 0;
  /**
   * Per action: 1 when its guard is an arrow function declared with the state alone (`enabled: (s) => ...`),
   * so it cannot read the parameters and is asked once per state instead of once per parameter choice.
   */
  private readonly guardOfState: Uint8Array;
  /** The action `successors` is running (when it throws, the one that threw). */
  expandingAction = -1;
  /**
   * Per action, its parts, read by index in the successors' loop: actions are objects of many shapes (each
   * spec's own fields), and reading `action.enabled` at one place for all of them was a generic
   * (megamorphic) property load per action and state.
   */
  private readonly paramsOf: readonly (((s: S) => Iterable<ActionParams>) | null)[];
  private readonly guardOf: readonly (Guard<S> | null)[];
  private readonly nextOf: readonly Effect<S>[];
  /**
   * Whether the model has a CONSTRAINT or an ACTION_CONSTRAINT (`admits` is always true without them):
   * the searches' per-successor loops test this first and call nothing for a model without constraints.
   */
  readonly constrained: boolean;
  /** 1 for an action its spec's parameters disable (`disabledBy`). */
  private readonly skipped: Uint8Array;
  /** Expansions so far, and the next one to probe (`successors`). */
  private expansions = 0;
  private nextProbe = 0;
  /** Milliseconds the probes have taken, and when this expander was made. */
  private probedMs = 0;
  private readonly madeAt = performance.now();
  /** The fingerprints of a probed expansion's successors. */
  private readonly probe = new Fingerprinter();
  /** The step properties (`everyStep`), checked on every step `successors` visits (StepViolation). */
  readonly stepProperties: readonly Property<S>[];
  /** The fingerprints of a step's two states, when a step property fails on it: a step that changes nothing breaks none. */
  private readonly stepProbe = new Fingerprinter();

  constructor(
    readonly model: Model<S>,
    symmetry: boolean,
  ) {
    this.actions = model.actions;
    // The invariants, then the properties of the initial states only: an index past `alwaysCount` is one of those.
    const always = model.properties.filter((p) => p.kind === 'always');
    this.invariants = [...always, ...model.properties.filter((p) => p.kind === 'initially')];
    this.alwaysCount = always.length;
    this.witnesses = model.properties.filter((p) => p.kind === 'sometimes');
    this.stepProperties = model.properties.filter((p) => p.kind === 'everyStep');
    this.enabledCount = new Float64Array(this.actions.length);
    this.firedCount = new Float64Array(this.actions.length);
    this.paramsOf = this.actions.map((a) => a.params ?? null);
    this.guardOf = this.actions.map((a) => a.enabled ?? null);
    this.nextOf = this.actions.map((a) => a.next);
    this.skipped = Uint8Array.from(this.actions, (a) => (a.disabledBy !== undefined ? 1 : 0));
    this.constrained = model.constraint !== undefined || model.actionConstraint !== undefined;
    this.guardOfState = Uint8Array.from(this.actions, (a) => (a.params !== undefined && a.enabled !== undefined && readsStateOnly(a.enabled) ? 1 : 0));
    this.renamings = symmetry && model.symmetry ? symmetryRenamings(model.symmetry) : [];
    this.symmetryCheck = SymmetryDeclarationCheck.of(model, this.renamings);
  }

  initialStates(): S[] {
    const states = this.init();
    // Twice, every time: as for successors (`successors`), a spec that is not deterministic is an error, each
    // time it is asked (a caller that only peeks at the states ignores it). A first call that happened to
    // agree with its second once let an init() that draws at random through (two in three runs of one).
    // init() is asked a few times a check or a simulation: the second call costs little.
    const again = this.init();
    const fingerprints = (list: S[]) =>
      list.map((s) => {
        this.probe.of(s);
        return `${this.probe.hi}:${this.probe.lo}`;
      });
    if (fingerprints(states).join() !== fingerprints(again).join()) {
      throw new NondeterminismError(
        `init(), called twice, gave two different lists of initial states. The spec's init is not deterministic (it depends on ${NONDETERMINISM_CAUSES}), so no verdict it gives can be trusted`,
      );
    }
    return states;
  }

  private init(): S[] {
    try {
      return [...this.model.init()];
    } catch (e) {
      throw new SpecError('init', 'init() threw', e);
    }
  }

  /**
   * The bytes the engine stores for a packed state (its own; copy them to keep them). An Immutable.js
   * state has none: the engine keeps it as the object the spec built.
   */
  bytesOf(s: S): Uint8Array {
    return isPacked(s) ? s.bytes : NO_BYTES;
  }

  /** Fingerprint of the state's view: a 64-bit hash of its bytes, least over the symmetry images; left in `hi`/`lo`. */
  fingerprint(s: S): void {
    let v: unknown = s;
    if (this.model.view) {
      try {
        v = this.model.view(s);
      } catch (e) {
        throw new SpecError('view', 'view() threw', e);
      }
    }
    if (v instanceof PackedView) {
      if (this.renamings.length > 0) return this.packedFingerprint(v);
      // A successor lies in the slab of layout writes, on a word: hashed a word at a time.
      const words = LITTLE_ENDIAN && (v._o & 3) === 0 ? wordsOf(v._b) : null;
      if (words !== null) hash64Aligned(words, v._b, v._o, v._o + v._t.width);
      else hash64(v._b, v._o, v._o + v._t.width);
      this.hi = hashed[0]!;
      this.lo = hashed[1]!;
      return;
    }
    const f = this.fingerprinter;
    f.of(v);
    let hi = f.hi;
    let lo = f.lo;
    for (const rename of this.renamings) {
      f.of(v, rename);
      if (f.hi < hi || (f.hi === hi && f.lo < lo)) {
        hi = f.hi;
        lo = f.lo;
      }
    }
    this.hi = hi;
    this.lo = lo;
  }

  /** The least fingerprint over the images of a packed state under the symmetry (see spec/layout/symmetry.ts). */
  private packedFingerprint(v: PackedView): void {
    if (this.layoutSymmetry === null || this.layoutSymmetry.root !== v._t) this.layoutSymmetry = new LayoutSymmetry(v._t, this.model.symmetry!);
    const w = v._t.width;
    hash64(v._b, v._o, v._o + w);
    let hi = hashed[0]!;
    let lo = hashed[1]!;
    this.layoutSymmetry.forEachImage(v._b, v._o, (image) => {
      hash64(image, 0, w);
      const h = hashed[0]!;
      const l = hashed[1]!;
      if (h < hi || (h === hi && l < lo)) {
        hi = h;
        lo = l;
      }
    });
    this.hi = hi;
    this.lo = lo;
  }

  /**
   * Calls `visit` for every successor, in the fixed order. Returns how many there were. A search checks the
   * step properties on the way (`checkSteps`); code that only reads the graph (pictures, shrinking, a
   * replayed deadlock, the liveness graph) does not, so a bad step does not stop it.
   *
   * Some expansions (see PROBE_SHARE) are made twice, and the second must give the same successors in
   * the same order: a spec that reads the clock, a random number or state of its own between calls would
   * otherwise search a part of its states it picked by chance and report it safe. (A counterexample is
   * checked the same way when it is rebuilt: traceBuilder.ts.)
   */
  successors(s: S, visit: SuccessorVisitor<S>, checkSteps = true): number {
    if (checkSteps && this.stepProperties.length > 0) visit = this.checkingSteps(s, visit);
    const n = this.expansions++;
    if (n !== this.nextProbe) return this.expand(s, visit);
    const start = performance.now();
    const count = this.probedSuccessors(s, visit);
    const now = performance.now();
    this.probedMs += now - start;
    const cheap = this.probedMs < Math.max(PROBE_START_MS, PROBE_SHARE * (now - this.madeAt));
    this.nextProbe = n + (cheap ? 1 : PROBE_EVERY);
    return count;
  }

  /**
   * `visit`, then the step properties on the step to each successor, one outside the constraints included
   * (TLC's Worker checks an action property on every step it generates, in the model or not). A step that
   * breaks one throws StepViolation, after the visit: the successor is generated, and a state it breaks an
   * invariant of is found first, as in TLC.
   */
  private checkingSteps(s: S, visit: SuccessorVisitor<S>): SuccessorVisitor<S> {
    return (t, action, params, ordinal) => {
      visit(t, action, params, ordinal);
      if (t === s) return;
      const k = this.firstStepViolation(s, t);
      if (k >= 0) throw new StepViolation(k, this.stepProperties[k]!.name, action, ordinal);
    };
  }

  /** Index (into `stepProperties`) of the first step property the step from `s` to `t` breaks, or -1 ([A]_vars: a step that changes nothing breaks none). */
  firstStepViolation(s: S, t: S): number {
    this.symmetryCheck?.sampleStep(s, t);
    const steps = this.stepProperties;
    for (let i = 0; i < steps.length; i++) {
      let ok: boolean;
      try {
        ok = steps[i]!.step!(s, t);
      } catch (e) {
        throw new SpecError('property', `property ${steps[i]!.name} threw`, e);
      }
      if (!ok) return this.unchanged(s, t) ? -1 : i;
    }
    return -1;
  }

  private unchanged(s: S, t: S): boolean {
    if (s === t) return true;
    this.stepProbe.of(s);
    const { hi, lo } = this.stepProbe;
    this.stepProbe.of(t);
    return this.stepProbe.hi === hi && this.stepProbe.lo === lo;
  }

  /** No expansion is made twice from now on (for a test that counts a spec's calls in each). */
  stopProbing(): void {
    this.nextProbe = -1;
  }

  /** `successors`, made twice: the first time only remembered (coverage as it was), the second compared with it as it is visited. */
  private probedSuccessors(s: S, visit: SuccessorVisitor<S>): number {
    const enabled = Float64Array.from(this.enabledCount);
    const fired = Float64Array.from(this.firedCount);
    const probe = this.probe;
    const first: number[] = [];
    let threw = false;
    try {
      this.expand(s, (t, action, _params, ordinal) => {
        probe.of(t);
        first.push(action, ordinal, probe.hi, probe.lo);
      });
    } catch {
      threw = true;
    }
    this.enabledCount.set(enabled);
    this.firedCount.set(fired);
    // The spec threw: the expansion is made once, as usual, and throws where it threw.
    if (threw) return this.expand(s, visit);
    let i = 0;
    const count = this.expand(s, (t, action, params, ordinal) => {
      probe.of(t);
      if (i >= first.length || first[i] !== action || first[i + 1] !== ordinal || first[i + 2] !== probe.hi || first[i + 3] !== probe.lo) {
        throw this.nondeterministic(i < first.length ? first[i]! : action, i >> 2);
      }
      i += 4;
      visit(t, action, params, ordinal);
    });
    if (i !== first.length) throw this.nondeterministic(first[i]!, i >> 2);
    return count;
  }

  private nondeterministic(action: number, successor: number): NondeterminismError {
    return new NondeterminismError(
      `one state, expanded twice, gave two different lists of successors (the first difference is its successor ${successor + 1}, by ${this.actions[action]?.name ?? 'an action'}). ` +
        `The spec's params or actions are not deterministic (they depend on ${NONDETERMINISM_CAUSES}), so no verdict it gives can be trusted`,
    );
  }

  /** The expansion itself (see `successors`). */
  private expand(s: S, visit: SuccessorVisitor<S>): number {
    let count = 0;
    const n = this.actions.length;
    const { paramsOf, guardOf, nextOf, skipped } = this;
    for (let a = 0; a < n; a++) {
      if (skipped[a] === 1) continue;
      this.expandingAction = a;
      const next = nextOf[a]!;
      const guard = guardOf[a]!;
      const params = paramsOf[a]!;
      let fired = 0;
      if (params === null) {
        if (guard === null || this.guardAt(guard, a, s, EMPTY_PARAMS)) {
          visit(this.nextAt(next, a, s, EMPTY_PARAMS), a, EMPTY_PARAMS, 0);
          fired++;
        }
      } else {
        let choices: Iterable<ActionParams>;
        try {
          choices = params(s);
        } catch (e) {
          throw new SpecError('params', `${this.actions[a]!.name}: params() threw`, e);
        }
        let ordinal = 0;
        if (Array.isArray(choices)) {
          // The common case, by index: an array's iterator is an object made per action and state.
          const list = choices as readonly ActionParams[];
          const n = list.length;
          if (this.guardOfState[a] === 1) {
            // The guard reads the state only: its answer for the first choice is its answer for them all.
            if (n > 0 && (guard === null || this.guardAt(guard, a, s, list[0]!))) {
              for (; ordinal < n; ordinal++) {
                const p = list[ordinal]!;
                visit(this.nextAt(next, a, s, p), a, p, ordinal);
                fired++;
              }
            }
          } else {
            for (; ordinal < n; ordinal++) {
              const p = list[ordinal]!;
              if (guard === null || this.guardAt(guard, a, s, p)) {
                visit(this.nextAt(next, a, s, p), a, p, ordinal);
                fired++;
              }
            }
          }
        } else if (this.guardOfState[a] === 1) {
          // The guard reads the state only: its answer for the first choice is its answer for them all.
          let on = -1;
          for (const p of choices) {
            if (on < 0) on = guard === null || this.guardAt(guard, a, s, p) ? 1 : 0;
            if (on === 0) break;
            visit(this.nextAt(next, a, s, p), a, p, ordinal);
            fired++;
            ordinal++;
          }
        } else {
          for (const p of choices) {
            if (guard === null || this.guardAt(guard, a, s, p)) {
              visit(this.nextAt(next, a, s, p), a, p, ordinal);
              fired++;
            }
            ordinal++;
          }
        }
      }
      if (fired > 0) {
        this.enabledCount[a]!++;
        this.firedCount[a]! += fired;
        count += fired;
      }
    }
    return count;
  }

  /** Whether the action's `guard` holds in `s` with `p` (a spec error names action `a` when it throws). */
  private guardAt(guard: Guard<S>, a: number, s: S, p: ActionParams): boolean {
    try {
      return guard(s, p);
    } catch (e) {
      throw new SpecError('enabled', `${this.actions[a]!.name}${formatParamsBrief(p)}: guard threw`, e);
    }
  }

  /** The action's effect `next` on `s` with `p` (a spec error names action `a` when it throws). */
  private nextAt(next: Effect<S>, a: number, s: S, p: ActionParams): S {
    let t: S;
    try {
      t = next(s, p);
    } catch (e) {
      throw new SpecError('next', `${this.actions[a]!.name}${formatParamsBrief(p)}: effect threw`, this.model.constraint !== undefined && e instanceof LayoutError ? beyondConstraint(e) : e);
    }
    const kind = this.kind ?? (this.kind = this.initialKind());
    if (kind !== 'unknown' && stateKind(t) !== kind) {
      throw new SpecError('next', `${this.actions[a]!.name}${formatParamsBrief(p)}: its effect returned ${describeNonState(t)}, not a state of this model (${describeKind(kind)}, as init() gives)`, new Error(t === undefined ? 'does the effect miss a return?' : 'an effect returns the next state'));
    }
    return t;
  }

  /** What the initial states are (packed, Immutable.js, or a primitive type), which every successor must be too. */
  private kind: string | null = null;
  private initialKind(): string {
    try {
      const [first] = this.model.init();
      return first === undefined ? 'unknown' : stateKind(first);
    } catch {
      return 'unknown';
    }
  }

  /**
   * The successor by action `actionIndex` with the parameters whose key (`paramsKey`) is `key`, or null
   * when that action has no such parameters in `s` or is not enabled there. Does not count coverage.
   */
  stepBy(s: S, actionIndex: number, key: string, paramsKey: (p: ActionParams) => string): { state: S; params: ActionParams } | null {
    const action = this.actions[actionIndex];
    if (action === undefined) return null;
    let choices: Iterable<ActionParams>;
    try {
      choices = action.params === undefined ? [EMPTY_PARAMS] : action.params(s);
    } catch (e) {
      throw new SpecError('params', `${action.name}: params() threw`, e);
    }
    for (const p of choices) {
      if (paramsKey(p) !== key) continue;
      if (!this.isEnabled(actionIndex, s, p)) return null;
      return { state: this.apply(actionIndex, s, p), params: p };
    }
    return null;
  }

  /** The `ordinal`-th parameter choice of action `actionIndex` applied to `s`, or null when not enabled there. */
  nthStep(s: S, actionIndex: number, ordinal: number): { state: S; params: ActionParams } | null {
    const action = this.actions[actionIndex];
    if (action === undefined) return null;
    let p: ActionParams | undefined = action.params === undefined && ordinal === 0 ? EMPTY_PARAMS : undefined;
    if (action.params !== undefined) {
      let i = 0;
      try {
        for (const q of action.params(s)) {
          if (i++ === ordinal) {
            p = q;
            break;
          }
        }
      } catch (e) {
        throw new SpecError('params', `${action.name}: params() threw`, e);
      }
    }
    if (p === undefined || !this.isEnabled(actionIndex, s, p)) return null;
    return { state: this.apply(actionIndex, s, p), params: p };
  }

  /** Re-runs a successor already found enabled: action `actionIndex` with its `ordinal`-th parameters. */
  nthSuccessor(s: S, actionIndex: number, ordinal: number): S {
    const action = this.actions[actionIndex]!;
    if (action.params === undefined) return this.apply(actionIndex, s, EMPTY_PARAMS);
    let i = 0;
    for (const p of action.params(s)) if (i++ === ordinal) return this.apply(actionIndex, s, p);
    throw new SpecError('params', `${action.name}: params() is not deterministic`, new Error(`no parameter #${ordinal}`));
  }

  /** Whether action `a` is enabled in `s` with parameters `p`. */
  private isEnabled(a: number, s: S, p: ActionParams): boolean {
    const guard = this.guardOf[a]!;
    return guard === null || this.guardAt(guard, a, s, p);
  }

  /** Action `a`'s successor of `s` with parameters `p`. */
  private apply(a: number, s: S, p: ActionParams): S {
    return this.nextAt(this.nextOf[a]!, a, s, p);
  }

  /** Index (into `invariants`) of the first invariant the state breaks, or -1. */
  firstViolation(s: S): number {
    return this.firstBroken(s, this.alwaysCount);
  }

  /** The same for an initial state: its invariants, then the `initially` properties. */
  firstInitialViolation(s: S): number {
    return this.firstBroken(s, this.invariants.length);
  }

  private firstBroken(s: S, upTo: number): number {
    this.symmetryCheck?.sample(s);
    const inv = this.invariants;
    for (let i = 0; i < upTo; i++) {
      let ok: boolean;
      try {
        ok = inv[i]!.test(s);
      } catch (e) {
        throw new SpecError('property', `property ${inv[i]!.name} threw`, e);
      }
      if (!ok) return i;
    }
    return -1;
  }

  /** Whether invariant `i` holds in `s`. */
  holds(s: S, i: number): boolean {
    const p = this.invariants[i]!;
    try {
      return p.test(s);
    } catch (e) {
      throw new SpecError('property', `property ${p.name} threw`, e);
    }
  }

  /** Marks in `reached` every witness the state satisfies; returns how many were newly reached. */
  markWitnesses(s: S, reached: Uint8Array): number {
    let newly = 0;
    const w = this.witnesses;
    for (let i = 0; i < w.length; i++) {
      if (reached[i]) continue;
      let ok: boolean;
      try {
        ok = w[i]!.test(s);
      } catch (e) {
        throw new SpecError('property', `property ${w[i]!.name} threw`, e);
      }
      if (ok) {
        reached[i] = 1;
        newly++;
      }
    }
    return newly;
  }

  /** Whether witness `i` holds in `s`. */
  holdsWitness(s: S, i: number): boolean {
    const p = this.witnesses[i]!;
    try {
      return p.test(s);
    } catch (e) {
      throw new SpecError('property', `property ${p.name} threw`, e);
    }
  }

  /**
   * False when the state is outside the model's CONSTRAINT. As in TLC, such a state is no state of the
   * model: its invariants are checked each time it is reached, but it is neither counted nor expanded.
   */
  withinConstraint(s: S): boolean {
    if (!this.model.constraint) return true;
    try {
      return this.model.constraint(s);
    } catch (e) {
      throw new SpecError('constraint', 'constraint() threw', e);
    }
  }

  /** Whether the step from `s` to `t` stays in the model: `t` within the CONSTRAINT, the step within the ACTION_CONSTRAINT. */
  admits(s: S, t: S): boolean {
    if (!this.withinConstraint(t)) return false;
    if (!this.model.actionConstraint) return true;
    try {
      return this.model.actionConstraint(s, t);
    } catch (e) {
      throw new SpecError('constraint', 'actionConstraint() threw', e);
    }
  }
}

function formatParamsBrief(p: ActionParams): string {
  const keys = Object.keys(p);
  if (keys.length === 0) return '';
  return `(${keys.map((k) => `${k}=${String(p[k])}`).join(', ')})`;
}

/**
 * Whether `guard` cannot see its second argument: an arrow function (which has no `arguments` of its own)
 * whose only parameter is a plain name. `(s, p = …) => …`, `(s, ...rest) => …` and `function (s) {…}`
 * also have length 1 but may read the parameters, so they are asked once per choice.
 */
function readsStateOnly(guard: (...args: never[]) => unknown): boolean {
  if (guard.length !== 1) return false;
  return /^(?:async\s*)?(?:[A-Za-z_$][\w$]*|\(\s*[A-Za-z_$][\w$]*\s*\))\s*=>/.test(Function.prototype.toString.call(guard));
}

/**
 * A layout bound hit under a CONSTRAINT: as in TLC, a successor outside the constraint is still built
 * (and checked against the invariants), so the layout must hold one step past the constraint's bound.
 */
function beyondConstraint(e: LayoutError): Error {
  const said = new Error(
    `${e.message}. This model has a CONSTRAINT: as in TLC, a successor outside it is still built and checked against the invariants before it is dropped, so the layout's bounds must hold one step past the constraint's bound (for a counter the constraint keeps at most N, declare at least N + 1)`,
  );
  said.name = e.name;
  return said;
}

/** A state's kind: `packed`, `immutable`, `plain object`, or its `typeof`. */
function stateKind(v: unknown): string {
  if (v instanceof PackedView) return 'packed';
  if (typeof v === 'object' && v !== null) return isImmutable(v) ? 'immutable' : 'plain object';
  return typeof v;
}

function describeKind(kind: string): string {
  return kind === 'packed' ? 'a view of its layout' : kind === 'immutable' ? 'an Immutable.js value' : `a ${kind}`;
}

function describeNonState(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (v === null) return 'null';
  if (typeof v === 'object') return Array.isArray(v) ? 'a plain array' : v instanceof PackedView ? 'a view of a layout' : isImmutable(v) ? 'an Immutable.js value' : 'a plain object';
  return `${typeof v} ${String(v).slice(0, 40)}`;
}
