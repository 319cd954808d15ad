/**
 * A design diff: the same properties checked under two variants of a design (two parameter sets, two
 * presets, or two spec modules of the same shape), property by property. For each property one variant
 * violates and the other does not, the counterexample is replayed on the other variant to say whether
 * the same history is still possible there and, if not, at which step it stops fitting.
 *
 * Uses only the public checking entry points (prepareCheck, checkModel, replayTrace): one search per
 * variant, repeated without each property it finds violated, so every property gets its own shortest
 * counterexample and the last, complete search gives the state space's size.
 */
import type { Model } from '../../spec/spec.ts';
import { checkModel, type CheckLabel } from '../engine/check.ts';
import type { CheckOptions } from '../engine/options.ts';
import { replayTrace, type ReplayOutcome } from '../engine/replay.ts';
import type { CheckResult } from '../engine/result.ts';
import { prepareCheck, type CheckRequest } from './runCheck.ts';
import { toItf, type ItfTrace } from '../../traces/itf/write.ts';
import type { StatePropertyKind, TemporalPropertyKind } from '../../invariants/property.ts';

/** What kind of property a row compares: an invariant, a witness, a temporal property, or deadlock freedom. */
export type DiffPropertyKind = StatePropertyKind | TemporalPropertyKind | 'deadlock';
import { describedStep } from '../../traces/render/steps.ts';

export type VariantName = 'A' | 'B';

export interface VariantRequest extends CheckRequest {
  readonly name: VariantName;
}

/** `absent`: the variant's model does not have the property (a spec may leave out what its parameters rule out). */
export type PropertyStatus = 'holds' | 'violated' | 'unreached' | 'unknown' | 'error' | 'absent';

export interface PropertyVerdict {
  readonly status: PropertyStatus;
  /** Steps of the shortest counterexample, when violated. */
  readonly traceLength?: number;
  /** The counterexample, when violated. */
  readonly trace?: ItfTrace;
}

export interface VariantSummary {
  readonly name: VariantName;
  readonly label: CheckLabel;
  /** `fourthCondition=leaderIdNotSelf`: how this variant differs from the other (all parameters when none do). */
  readonly differs: string;
  readonly complete: boolean;
  /** How the last search ended when it was not complete: `maxStates`, `timeLimit`, or the spec's error. */
  readonly stopped?: string;
  /** The spec's own code threw in this variant's search. */
  readonly threw?: true;
  readonly distinct: number;
  readonly depth: number;
  readonly seconds: number;
}

/** What B does to a property A has: fixes a violation, breaks a property, or leaves it. */
export type Change = 'fixed' | 'broken' | 'same' | 'other';

export interface PropertyRow {
  readonly property: string;
  readonly kind: DiffPropertyKind;
  readonly a: PropertyVerdict;
  readonly b: PropertyVerdict;
  readonly change: Change;
  /** For a fixed or broken property: the violating variant's counterexample replayed on the other. */
  readonly replay?: ReplaySummary;
}

export interface ReplaySummary {
  /** The variant the counterexample was found in, and the one it was replayed on. */
  readonly from: VariantName;
  readonly on: VariantName;
  readonly outcome: ReplayOutcome;
  /** One sentence: `does not fit B: step 4 (HandleVoteResponse…) leads to a different state: …`. */
  readonly sentence: string;
}

export interface DesignDiff {
  readonly spec: string;
  readonly a: VariantSummary;
  readonly b: VariantSummary;
  readonly rows: readonly PropertyRow[];
}

interface VariantRun {
  readonly summary: VariantSummary;
  readonly verdicts: ReadonlyMap<string, PropertyVerdict>;
  readonly model: Model<unknown>;
  readonly kinds: ReadonlyMap<string, DiffPropertyKind>;
}

export const DEADLOCK = 'Deadlock';

export async function designDiff(a: VariantRequest, b: VariantRequest, options: CheckOptions = {}): Promise<DesignDiff> {
  const [pa, pb] = [await prepareCheck(a), await prepareCheck(b)];
  const differs = differingParams(pa.label, pb.label);
  const runA = await runVariant('A', pa, { ...pa.options, ...options }, differs.a);
  const runB = await runVariant('B', pb, { ...pb.options, ...options }, differs.b);
  const names = [...new Set([...runA.kinds.keys(), ...runB.kinds.keys()])];
  const rows = names.map((property): PropertyRow => {
    const va = runA.verdicts.get(property) ?? { status: 'absent' as const };
    const vb = runB.verdicts.get(property) ?? { status: 'absent' as const };
    const change = changeOf(va.status, vb.status);
    const kind = runA.kinds.get(property) ?? runB.kinds.get(property)!;
    const row = { property, kind, a: va, b: vb, change };
    // A witness unreached has no trace to replay.
    if (change === 'fixed' && va.trace) return { ...row, replay: replayOn(va.trace, 'A', runB, property) };
    if (change === 'broken' && vb.trace) return { ...row, replay: replayOn(vb.trace, 'B', runA, property) };
    return row;
  });
  return { spec: pa.label.spec === pb.label.spec ? pa.label.spec : `${pa.label.spec} / ${pb.label.spec}`, a: runA.summary, b: runB.summary, rows };
}

function changeOf(a: PropertyStatus, b: PropertyStatus): Change {
  const bad = (s: PropertyStatus) => s === 'violated' || s === 'unreached';
  if (a === b) return 'same';
  // A property only one variant has: failing there, it is a difference the table must show, not sameness.
  if (a === 'absent' || b === 'absent') return bad(a) || bad(b) ? 'other' : 'same';
  if (bad(a) && b === 'holds') return 'fixed';
  if (a === 'holds' && bad(b)) return 'broken';
  return 'other';
}

async function runVariant(
  name: VariantName,
  prepared: Awaited<ReturnType<typeof prepareCheck>>,
  options: CheckOptions,
  differs: string,
): Promise<VariantRun> {
  const { model, label } = prepared;
  const kinds = new Map<string, DiffPropertyKind>(model.properties.map((p) => [p.name, p.kind]));
  const deadlockChecked = options.deadlock ?? true;
  if (deadlockChecked) kinds.set(DEADLOCK, 'deadlock');
  const verdicts = new Map<string, PropertyVerdict>();
  let remaining = model.properties;
  let deadlock = deadlockChecked;
  let seconds = 0;
  let last: CheckResult<unknown>;
  // Each search stops at its first violation (breadth-first: the shortest for that property); the next
  // search leaves that property out, until one completes.
  for (;;) {
    const run = { ...model, properties: remaining };
    last = await checkModel(run, { ...options, deadlock }, label);
    seconds += last.stats.seconds;
    if (last.status !== 'violation') break;
    if (last.kind === 'sometimes') {
      for (const p of last.unreached ?? [last.property]) verdicts.set(p, { status: 'unreached' });
      break;
    }
    const violated = last.property;
    const trace = last.trace ? toItf(last.trace) : undefined;
    verdicts.set(violated, { status: 'violated', ...(trace ? { trace, traceLength: trace.states.length - 1 } : {}) });
    if (last.kind === 'deadlock') deadlock = false;
    else remaining = remaining.filter((p) => p.name !== violated);
  }
  const rest: PropertyStatus = last.status === 'holds' || last.status === 'violation' ? 'holds' : last.status === 'error' ? 'error' : 'unknown';
  // A `sometimes` property holds when the complete search reached it.
  const reached = new Set('witnesses' in last ? last.witnesses : []);
  for (const [p, kind] of kinds) {
    if (verdicts.has(p)) continue;
    verdicts.set(p, { status: rest === 'holds' && kind === 'sometimes' && !reached.has(p) ? 'unreached' : rest });
  }
  const stopped = last.status === 'incomplete' ? last.reason : last.status === 'error' ? `the spec threw: ${last.message}` : undefined;
  return {
    model,
    kinds,
    verdicts,
    summary: {
      name,
      label,
      differs,
      complete: last.status === 'holds' || last.status === 'violation',
      ...(stopped ? { stopped } : {}),
      ...(last.status === 'error' ? { threw: true as const } : {}),
      distinct: last.stats.distinct,
      depth: last.stats.depth,
      seconds,
    },
  };
}

function replayOn(trace: ItfTrace, from: VariantName, other: VariantRun, property: string): ReplaySummary {
  const on = other.summary.name;
  const outcome = replayTrace(other.model, trace);
  // The step as pictures name it (the spec's words for a message), not its raw parameter record.
  const meta = outcome.kind === 'diverged' ? trace.states.find((s) => s['#meta']?.index === outcome.step)?.['#meta'] : undefined;
  const stepName = meta ? (describedStep(meta.action, meta.params, meta) ?? undefined) : undefined;
  return { from, on, outcome, sentence: replaySentence(outcome, on, property, stepName) };
}

export function replaySentence(outcome: ReplayOutcome, on: VariantName, property: string, stepName?: string): string {
  switch (outcome.kind) {
    case 'diverged':
      return `does not fit ${on}: step ${outcome.step} (${stepName ?? outcome.action}) ${outcome.reason.startsWith('it ') ? outcome.reason.slice(3) : `fails: ${outcome.reason}`}`;
    case 'fits':
      return `fits ${on} step for step (all ${outcome.steps - 1} steps), but ${property} holds there`;
    case 'reproduced':
      return outcome.property === property
        ? `fits ${on} and breaks ${property} there too at step ${outcome.step}`
        : `fits ${on} up to step ${outcome.step}, where ${outcome.property} fails instead`;
  }
}

/** Each side's parameters that differ from the other's, as `name=value` (all of them when none differ). */
function differingParams(a: CheckLabel, b: CheckLabel): { a: string; b: string } {
  const keys = [...new Set([...Object.keys(a.params), ...Object.keys(b.params)])];
  const diff = keys.filter((k) => String(a.params[k]) !== String(b.params[k]));
  const text = (l: CheckLabel, ks: readonly string[]) =>
    [l.preset && a.preset !== b.preset ? `preset ${l.preset}` : '', ...ks.filter((k) => k in l.params).map((k) => `${k}=${String(l.params[k])}`)].filter(Boolean).join(' ');
  if (diff.length === 0 && a.preset === b.preset) return { a: text(a, keys) || '(no parameters)', b: text(b, keys) || '(no parameters)' };
  return { a: text(a, diff) || '(same parameters)', b: text(b, diff) || '(same parameters)' };
}
