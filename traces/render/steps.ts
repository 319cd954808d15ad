/**
 * The one reading of an ITF trace that every picture shares: each step's action, parameters, narration
 * (actor, messages, marks) and variables; the lifelines; the action order that fixes each action's colour;
 * and the verdict. Works on plain Apalache/Quint ITF too (no narration, actions from `mbt::actionTaken`).
 */
import type { ItfTrace, ItfValue } from '../itf/write.ts';
import type { Message } from '../../spec/spec.ts';
import type { TraceVerdict } from '../trace.ts';
import type { StateVars } from './fields.ts';
import { formatValue } from './value.ts';

export interface Step {
  readonly index: number;
  readonly action: string;
  readonly params: { readonly [name: string]: ItfValue };
  /** `rm=r1, m=[type |-> "Fetch"]`; empty for an action without parameters. */
  readonly paramsText: string;
  /**
   * How pictures name the step: `RMPrepare(rm=r1)` for plain parameters; for a parameter that is a record
   * (a message), the spec's own narration instead of its dump, `HandleVoteResponse r1 ← r2: PreVoteResp e1
   * denied leader=r1`.
   */
  readonly label: string;
  /** `HandleVoteResponse(s=r1, m=[type |-> "VoteResponse", …])`: the action and every parameter in full. */
  readonly call: string;
  readonly actor?: string;
  readonly sends: readonly Message[];
  readonly receives: readonly Message[];
  readonly marks: readonly string[];
  readonly vars: StateVars;
}

export function stepsOf(itf: ItfTrace): Step[] {
  return itf.states.map((state, i) => {
    const meta = (state['#meta'] ?? {}) as Partial<ItfTrace['states'][number]['#meta']> & { 'mbt::actionTaken'?: unknown };
    const vars: { [name: string]: ItfValue } = {};
    for (const [k, v] of Object.entries(state)) if (k !== '#meta' && !k.startsWith('mbt::')) vars[k] = v as ItfValue;
    const quintAction = (state as { 'mbt::actionTaken'?: unknown })['mbt::actionTaken'] ?? meta['mbt::actionTaken'];
    const action = meta.action ?? (typeof quintAction === 'string' && quintAction !== '' ? quintAction : i === 0 ? 'Init' : 'Step');
    const params = meta.params ?? {};
    const paramsText = formatParams(params);
    const call = paramsText === '' ? action : `${action}(${paramsText})`;
    return {
      index: meta.index ?? i,
      action,
      params,
      paramsText,
      label: describedStep(action, params, meta) ?? call,
      call,
      ...(meta.actor !== undefined ? { actor: meta.actor } : {}),
      sends: meta.sends ?? [],
      receives: meta.receives ?? [],
      marks: meta.marks ?? [],
      vars,
    };
  });
}

/**
 * The step in the spec's own words when a parameter is a record or collection (typically the message
 * being handled), whose dump would bury what happened: what it received, else its marks, else what it
 * sent. `undefined` when the parameters are plain values or the spec narrates nothing.
 */
export function describedStep(
  action: string,
  params: { readonly [name: string]: unknown },
  narration: { readonly actor?: string; readonly sends?: readonly Message[]; readonly receives?: readonly Message[]; readonly marks?: readonly string[] },
): string | undefined {
  if (!Object.values(params).some((v) => typeof v === 'object' && v !== null)) return undefined;
  const received = (narration.receives ?? []).map((m) => `${m.to} ← ${m.from}: ${m.label}`);
  if (received.length > 0) return `${action} ${received.join('; ')}`;
  if ((narration.marks ?? []).length > 0) return `${action} ${narration.actor !== undefined ? `${narration.actor}: ` : ''}${narration.marks!.join(', ')}`;
  const sent = (narration.sends ?? []).map((m) => `${m.from} → ${m.to}: ${m.label}`);
  if (sent.length > 0) return `${action} ${sent.join('; ')}`;
  return undefined;
}

export function formatParams(params: { readonly [name: string]: ItfValue }): string {
  return Object.entries(params)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : formatValue(v)}`)
    .join(', ');
}

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** Every party that acts, sends or receives, in natural order (`b2` before `b10`). */
export function actorsOf(steps: readonly Step[]): string[] {
  const names = new Set<string>();
  for (const s of steps) {
    if (s.actor !== undefined) names.add(s.actor);
    for (const m of [...s.sends, ...s.receives]) {
      names.add(m.from);
      names.add(m.to);
    }
  }
  return [...names].sort(collator.compare);
}

/** Action names in order of first appearance (step 0's `Init` excluded): the colour order of a trace. */
export function actionsOf(steps: readonly Step[]): string[] {
  const seen = new Set<string>();
  for (const s of steps.slice(1)) seen.add(s.action);
  return [...seen];
}

export function verdictOf(itf: ItfTrace): TraceVerdict | undefined {
  return itf['#meta']?.verdict;
}

/** "kraft · preset kraft-16281": what was checked, short enough for a picture's title. */
export function headlineOf(itf: ItfTrace): string {
  const meta = itf['#meta'];
  if (meta === undefined) return 'ITF trace';
  return meta.preset ? `${meta.spec ?? 'trace'} · preset ${meta.preset}` : (meta.spec ?? 'trace');
}

/** "rm=3, bug=tmCommitEarly" */
export function paramsTextOf(itf: ItfTrace): string {
  return Object.entries(itf['#meta']?.params ?? {})
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(', ');
}

/** The headline, with the parameters when they are short or no preset names them. */
export function titleOf(itf: ItfTrace): string {
  const params = paramsTextOf(itf);
  if (params === '' || (itf['#meta']?.preset && params.length > 80)) return headlineOf(itf);
  return `${headlineOf(itf)} · ${params}`;
}

/** One sentence naming what went wrong, for banners and diagram footers. */
export function verdictSentence(verdict: TraceVerdict, lastStep: number): string {
  switch (verdict.kind) {
    case 'always':
      return `Invariant ${verdict.property} is violated at step ${lastStep}: ${verdict.description}`;
    case 'everyStep':
      return `Step property ${verdict.property} is violated by step ${lastStep}: ${verdict.description}`;
    case 'deadlock':
      return `Deadlock at step ${lastStep}: ${verdict.description}`;
    case 'error':
      return `The spec threw at step ${lastStep}: ${verdict.description}`;
    case 'liveness':
      return `${verdict.property} fails on a behaviour that loops forever from step ${lastStep}: ${verdict.description}`;
    default:
      return `${verdict.property} at step ${lastStep}: ${verdict.description}`;
  }
}

/**
 * The trace with kmc's metadata filled in where a plain Apalache/Quint file lacks it (step indexes,
 * action names, parameters, `vars`), for code that reads kmc's own traces.
 */
export function withKmcMetadata(itf: ItfTrace): ItfTrace {
  const steps = stepsOf(itf);
  const states = itf.states.map((state, i) => ({ ...state, '#meta': { ...(state['#meta'] ?? {}), index: steps[i]!.index, action: steps[i]!.action, params: steps[i]!.params } }));
  const vars = itf.vars ?? Object.keys(steps[0]?.vars ?? {});
  const meta = itf['#meta'] ?? { format: 'ITF' as const, 'format-description': '', source: 'kmc' as const, spec: 'trace', params: {} };
  return { ...itf, '#meta': { ...meta, params: meta.params ?? {} }, vars, states } as ItfTrace;
}
