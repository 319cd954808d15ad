/**
 * Random simulation for models too big to exhaust: `runs` random walks of at most `maxDepth` steps from
 * a seed. Every state a walk generates is checked, and a violation is shrunk before it is shown.
 *
 * Bounded liveness: a walk that comes back to a state already on it has closed a lasso; when its cycle
 * is fair and a temporal property fails on the behaviour it stands for, that is a real counterexample
 * (reported as is, not shrunk). A walk that stops in a state with no successor stutters there for ever.
 */
import type { ActionParams } from '../../spec/spec.ts';
import type { Trace, TraceVerdict } from '../../traces/trace.ts';
import { Expander, SpecError } from './expander.ts';
import { Limits, yieldToEventLoop } from './limits.ts';
import type { CheckOptions } from './options.ts';
import { Rng } from './rng.ts';
import { FingerprintSet } from './state/fingerprintSet.ts';
import { shrink, type ShrinkTarget } from './shrink.ts';
import { buildTrace, type Walk } from './walkTrace.ts';
import type { CheckLabel } from './check.ts';
import type { Model } from '../../spec/spec.ts';
import { accelerateImmutable } from './immutableAcceleration.ts';
import { isTemporal } from '../../invariants/property.ts';
import { ConfigError } from './check.ts';
import { livenessRefusal } from './liveness/checkLiveness.ts';
import { FairnessKeys } from './liveness/fairness.ts';
import { failsOn, unfairKey } from './liveness/judgeLasso.ts';

export interface SimulationOptions extends Pick<CheckOptions, 'deadlock' | 'timeLimitSeconds' | 'shouldStop' | 'onProgress' | 'progressIntervalMs' | 'onVerdict'> {
  readonly seed: number;
  readonly runs: number;
  readonly maxDepth: number;
  /**
   * A swarm's walk (parallel/swarm.ts): the first run (from 0) it is not to start, asked before each run
   * and at every step. Once the current run is at or past it, the walk ends, interrupted: another walk
   * found a violation in an earlier run, which this one can no longer come before.
   */
  readonly runsBefore?: () => number;
  /** Told, with the verdict, the run (from 0) a violation or an error was found in, before it is shrunk. */
  readonly onFoundInRun?: (run: number) => void;
}

export type SimulationResult<S> =
  | { readonly status: 'holds'; readonly stats: SimulationStats }
  | { readonly status: 'violation'; readonly kind: 'always' | 'everyStep' | 'deadlock' | 'liveness'; readonly property: string; readonly trace: Trace<S>; readonly stats: SimulationStats; readonly shrunkFrom: number; readonly shrinkStoppedBy?: 'timeLimit' | 'interrupted' }
  | { readonly status: 'incomplete'; readonly reason: 'timeLimit' | 'interrupted'; readonly stats: SimulationStats }
  | { readonly status: 'error'; readonly message: string; readonly trace?: Trace<S>; readonly stats: SimulationStats };

export interface SimulationStats {
  readonly seed: number;
  readonly runs: number;
  readonly steps: number;
  /** Distinct states seen across all walks. */
  readonly distinct: number;
  readonly seconds: number;
  /** With `runsBefore` (a swarm's walk): per run started, the steps and distinct states before it, in turn. */
  readonly runStarts?: readonly number[];
}

/**
 * Runs whose starting figures a swarm's walk keeps (16 bytes each): past them a walk cut back by its bound
 * reports the figures it reached, which may then differ between runs of one seed (the finding does not).
 */
const RUN_STARTS_KEPT = 1 << 20;

export async function simulate<S>(model: Model<S>, options: SimulationOptions, label: CheckLabel): Promise<SimulationResult<S>> {
  accelerateImmutable();
  const refusal = livenessRefusal(model, false);
  if (refusal !== null) throw new ConfigError(refusal);
  const expander = new Expander(model, false);
  const temporal = model.properties.filter(isTemporal);
  const keys = new FairnessKeys(expander.actions as never);
  const limits = new Limits(options);
  const rng = new Rng(options.seed);
  const seen = new FingerprintSet();
  const deadlock = options.deadlock ?? true;
  let runs = 0;
  let steps = 0;
  /** A swarm cuts a walk's figures back to the run its finding bounds it to, so a walk keeps them per run. */
  const runStarts: number[] | null = options.runsBefore ? [] : null;
  // Runs started, so a violation in the first run reports one run.
  const stats = (): SimulationStats => ({
    seed: options.seed,
    runs: Math.min(runs + 1, options.runs),
    steps,
    distinct: seen.size,
    seconds: limits.seconds,
    ...(runStarts ? { runStarts } : {}),
  });
  const note = (s: S) => {
    expander.fingerprint(s);
    seen.add(expander.hi, expander.lo);
  };
  let walk: Walk = { init: 0, steps: [] };
  try {
    const inits = expander.initialStates();
    for (; runs < options.runs; runs++) {
      if (runStarts !== null && runs < RUN_STARTS_KEPT) runStarts.push(steps, seen.size);
      if (options.runsBefore !== undefined && runs >= options.runsBefore()) return { status: 'incomplete', reason: 'interrupted', stats: stats() };
      const init = rng.below(inits.length);
      walk = { init, steps: [] };
      let s: S = inits[init]!;
      note(s);
      // States on this walk by fingerprint, for closing lassos.
      const onWalk = new Map<string, number>();
      const walkStates: S[] = [s];
      if (temporal.length > 0) onWalk.set(`${expander.hi}:${expander.lo}`, 0);
      let bad = expander.firstInitialViolation(s);
      if (bad >= 0) return await violation(bad);
      // A walk ends at a state outside the CONSTRAINT (or reached by a step outside the ACTION_CONSTRAINT),
      // once checked, as TLC's simulation ends it.
      let inModel = expander.withinConstraint(s);
      for (let d = 0; d < options.maxDepth && inModel; d++) {
        // A limit is heard at every step, not only between walks: a walk of slow steps can take minutes.
        const reason = limits.exceeded(0, 0);
        if (reason === 'timeLimit' || reason === 'interrupted') return { status: 'incomplete', reason, stats: stats() };
        if (options.runsBefore !== undefined && runs >= options.runsBefore()) return { status: 'incomplete', reason: 'interrupted', stats: stats() };
        if (limits.shouldYield()) await yieldToEventLoop();
        const next: { t: S; action: number; params: ActionParams }[] = [];
        // The step properties are checked below, successor by successor, after each one's invariants (as the search has them).
        expander.successors(s, (t, action, params) => next.push({ t, action, params }), false);
        if (next.length === 0) {
          if (deadlock) return await finish({ kind: 'deadlock' });
          const stuck = lasso(walkStates, walkStates.length - 1, null);
          if (stuck) return stuck;
          break;
        }
        for (const n of next) {
          bad = expander.firstViolation(n.t);
          const step = bad < 0 && n.t !== s && expander.stepProperties.length > 0 ? expander.firstStepViolation(s, n.t) : -1;
          if (bad >= 0 || step >= 0) walk = { init, steps: [...walk.steps, { action: n.action, params: n.params }] };
          if (bad >= 0) return await violation(bad);
          if (step >= 0) return await stepViolated(step);
        }
        const pick = next[rng.below(next.length)]!;
        inModel = expander.admits(s, pick.t);
        // A step out of the model ends the walk: it closes no lasso, as no behaviour of the model takes it,
        // but the model's behaviour may stop where the walk is (stuttering, where nothing fair is owed).
        if (!inModel) {
          const stuck = lasso(walkStates, walkStates.length - 1, null);
          if (stuck) return stuck;
        }
        if (temporal.length > 0 && inModel) {
          expander.fingerprint(pick.t);
          const key = `${expander.hi}:${expander.lo}`;
          const back = onWalk.get(key);
          if (back !== undefined) {
            const closed = lasso(walkStates, back, { action: pick.action, params: pick.params });
            if (closed) return closed;
          } else {
            onWalk.set(key, walkStates.length);
          }
          walkStates.push(pick.t);
        }
        walk.steps.push({ action: pick.action, params: pick.params });
        s = pick.t;
        note(s);
        steps++;
      }
      const reason = limits.exceeded(0, 0);
      if (reason === 'timeLimit' || reason === 'interrupted') return { status: 'incomplete', reason, stats: stats() };
      limits.progress({ distinct: seen.size, generated: steps, queued: options.runs - runs, depth: 0 });
      if (limits.shouldYield()) await yieldToEventLoop();
    }
  } catch (e) {
    if (!(e instanceof SpecError)) throw e;
    options.onFoundInRun?.(runs);
    options.onVerdict?.({ status: 'error', property: 'Error', headline: `The spec threw: ${e.message}` });
    const trace = safeTrace(walk, { kind: 'error', property: 'Error', description: e.message });
    return { status: 'error', message: e.message, stats: stats(), ...(trace ? { trace } : {}) };
  }
  return { status: 'holds', stats: stats() };

  /**
   * The walk so far, then `closing` back to `walkStates[loop]` (null: the last state stutters), as a
   * liveness violation when that cycle is fair and a temporal property fails on it.
   */
  function lasso(walkStates: readonly S[], loop: number, closing: { action: number; params: ActionParams } | null): SimulationResult<S> | null {
    if (temporal.length === 0) return null;
    // A walk may pass a state twice: the lasso keeps the path up to the last state before the step back.
    const states = walkStates.slice(0, walk.steps.length + 1);
    const cycle = closing ? [...walk.steps.slice(loop), closing] : [];
    if (unfairKey(expander, keys, closing ? states.slice(loop) : states.slice(-1), cycle) !== null) return null;
    const p = temporal.find((q) => failsOn(q, states, closing ? loop : states.length - 1));
    if (p === undefined) return null;
    const verdict: TraceVerdict = { kind: 'liveness', property: p.name, description: p.description };
    const closingName = closing ? expander.actions[closing.action]!.name : null;
    const trace: Trace<S> = {
      ...buildTrace(expander, walk, label),
      verdict,
      loop: closing ? { index: loop, action: closingName!, params: closing.params } : { index: states.length - 1 },
    };
    return { status: 'violation', kind: 'liveness', property: p.name, trace, stats: stats(), shrunkFrom: walk.steps.length };
  }

  function violation(invariant: number): Promise<SimulationResult<S>> {
    return finish({ kind: 'always', invariant });
  }

  function stepViolated(property: number): Promise<SimulationResult<S>> {
    return finish({ kind: 'everyStep', property });
  }

  async function finish(target: ShrinkTarget): Promise<SimulationResult<S>> {
    const original = walk.steps.length;
    const verdict: TraceVerdict =
      target.kind === 'deadlock'
        ? { kind: 'deadlock', property: 'Deadlock', description: 'no action is enabled in this state' }
        : target.kind === 'everyStep'
          ? { kind: 'everyStep', property: expander.stepProperties[target.property]!.name, description: expander.stepProperties[target.property]!.description }
          : { kind: 'always', property: expander.invariants[target.invariant]!.name, description: expander.invariants[target.invariant]!.description };
    const headline = target.kind === 'deadlock' ? 'Deadlock' : target.kind === 'everyStep' ? `Step property ${verdict.property} violated` : `Invariant ${verdict.property} violated`;
    options.onFoundInRun?.(runs);
    options.onVerdict?.({ status: 'violation', property: verdict.property, headline });
    // A turn of the event loop, so the verdict goes out (to a cluster's driver) before shrinking starts.
    await yieldToEventLoop();
    const { walk: shrunk, stoppedBy } = await shrink(expander, walk, target, limits);
    const trace = { ...buildTrace(expander, shrunk, label), verdict };
    return { status: 'violation', kind: target.kind, property: verdict.property, trace, stats: stats(), shrunkFrom: original, ...(stoppedBy ? { shrinkStoppedBy: stoppedBy } : {}) };
  }

  function safeTrace(w: Walk, verdict: TraceVerdict): Trace<S> | undefined {
    try {
      return { ...buildTrace(expander, w, label), verdict };
    } catch {
      return undefined;
    }
  }
}
