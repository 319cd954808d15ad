/**
 * The Informal Trace Format (ITF, Apalache ADR-015, `.itf.json`), typed the way Quint writes it, so that
 * Quint's reader and type checker and itf-rs accept kmc traces:
 * - records → objects, List → arrays, Set → {"#set"}, Map → {"#map"}, every integer → {"#bigint": "n"};
 * - a record field that may be empty (its Record default is `null`) is a Quint `Option` in every state:
 *   {"tag": "Some", "value": v} or {"tag": "None", "value": {"#tup": []}}, never a bare value in one
 *   state and a variant in another; any other `null` is written as None;
 * - each state also carries `mbt::actionTaken` (the action's name, `Init` for the first state) and
 *   `mbt::nondetPicks` (a record with every parameter name used in the trace, each Some(value) when the
 *   step picked it and None otherwise), as Quint's model-based-testing drivers read them.
 * Known limit: records that share a collection but differ in fields (KRaft's messages) are written as
 * records of different shapes; Quint would need them as one variant type.
 * Unordered collections are written in a canonical order so the same state always gives the same text
 * and traces diff cleanly. Each state's `#meta` carries the action taken, its parameters and the step's
 * narration.
 */
import { isImmutable, isIndexed, isKeyed, isOrdered, isRecord } from '../../spec/immutable.ts';
import type { ParamValues, StepEvents } from '../../spec/spec.ts';
import type { Trace, TraceVerdict } from '../trace.ts';
import { isPacked } from '../../spec/layout/packed.ts';

export type ItfValue =
  | string
  | number
  | boolean
  | ItfValue[]
  | { '#set': ItfValue[] }
  | { '#map': [ItfValue, ItfValue][] }
  | { '#bigint': string }
  | { '#tup': ItfValue[] }
  | { '#unserializable': string }
  | { tag: string; value: ItfValue }
  | { [field: string]: ItfValue };

export interface ItfStateMeta {
  readonly index: number;
  readonly action: string;
  readonly params: { [name: string]: ItfValue };
  readonly actor?: string;
  readonly sends?: StepEvents['sends'];
  readonly receives?: StepEvents['receives'];
  readonly marks?: StepEvents['marks'];
}

export interface ItfState {
  readonly '#meta': ItfStateMeta;
  readonly [variable: string]: ItfValue | ItfStateMeta;
}

export interface ItfTrace {
  readonly '#meta': {
    readonly format: 'ITF';
    readonly 'format-description': string;
    readonly source: 'kmc';
    readonly spec: string;
    readonly preset?: string;
    readonly params: ParamValues;
    readonly verdict?: TraceVerdict;
    /** For a lasso: the step from the last state back to `states[loop]`; absent when the last state stutters. */
    readonly loopStep?: { readonly action: string; readonly params: { [name: string]: ItfValue } };
  };
  readonly vars: string[];
  readonly states: ItfState[];
  /**
   * ADR-015's lasso: the last state is followed by `states[loop]` again, for ever (a liveness
   * counterexample). `loop` equal to the last index means the last state repeats (stuttering).
   */
  readonly loop?: number;
}

export const NONE: ItfValue = { tag: 'None', value: { '#tup': [] } };
export const some = (value: ItfValue): ItfValue => ({ tag: 'Some', value });
export const ACTION_TAKEN = 'mbt::actionTaken';
export const NONDET_PICKS = 'mbt::nondetPicks';

// Per Record type: the fields whose default is null, i.e. that may be empty (written as Options).
const optionalFields = new WeakMap<object, ReadonlySet<string>>();
function optionalFieldsOf(record: object): ReadonlySet<string> {
  const proto = Object.getPrototypeOf(record) as { _defaultValues?: Record<string, unknown> };
  let fields = optionalFields.get(proto);
  if (fields === undefined) {
    const defaults = proto._defaultValues ?? {};
    fields = new Set(Object.keys(defaults).filter((k) => defaults[k] === null));
    optionalFields.set(proto, fields);
  }
  return fields;
}
const FORMAT_URL = 'https://apalache-mc.org/docs/adr/015adr-trace.html';

/** The ITF form of an Immutable value or primitive. */
export function toItfValue(v: unknown): ItfValue {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      if (Number.isInteger(v)) return { '#bigint': BigInt(v).toString() };
      return { '#unserializable': String(v) };
    case 'bigint':
      return { '#bigint': v.toString() };
    case 'undefined':
      return NONE;
    case 'object':
      if (v === null) return NONE;
      if (isPacked(v)) return toItfValue(v.toImmutable()); // a packed view shows as its Immutable form
      if (isRecord(v)) {
        const optional = optionalFieldsOf(v);
        const out: { [field: string]: ItfValue } = {};
        for (const [k, x] of Object.entries((v as unknown as { toObject(): object }).toObject())) {
          out[k] = optional.has(k) && x !== null && x !== undefined ? some(toItfValue(x)) : toItfValue(x);
        }
        return out;
      }
      if (isImmutable(v)) return collectionToItf(v);
      if (Array.isArray(v)) return v.map(toItfValue);
      return { '#unserializable': String(v) };
    default:
      return { '#unserializable': String(v) };
  }
}

function collectionToItf(c: unknown): ItfValue {
  const col = c as { forEach(f: (v: unknown, k: unknown) => void): void };
  const ordered = isOrdered(c);
  if (isKeyed(c)) {
    const entries: [ItfValue, ItfValue][] = [];
    col.forEach((v, k) => entries.push([toItfValue(k), toItfValue(v)]));
    if (!ordered) sortCanonically(entries, (e) => e[0]);
    return { '#map': entries };
  }
  const items: ItfValue[] = [];
  col.forEach((v) => items.push(toItfValue(v)));
  if (isIndexed(c)) return items;
  if (!ordered) sortCanonically(items, (x) => x);
  return { '#set': items };
}

function sortCanonically<T>(xs: T[], key: (x: T) => ItfValue): void {
  const keyed = xs.map((x) => [canonicalJson(key(x)), x] as const);
  keyed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  keyed.forEach(([, x], i) => (xs[i] = x));
}

/** JSON text with object keys sorted: equal ITF values give equal text. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/** A state's variables: a Record's fields (or a Map's string keys); anything else is one variable `state`. */
export function stateVariables(state: unknown): { [name: string]: ItfValue } {
  if (isPacked(state)) state = state.toImmutable();
  if (isRecord(state)) return toItfValue(state) as { [name: string]: ItfValue };
  if (isImmutable(state) && isKeyed(state) && !isOrdered(state)) {
    const out: { [name: string]: ItfValue } = {};
    (state as unknown as { forEach(f: (v: unknown, k: unknown) => void): void }).forEach((v, k) => {
      out[String(k)] = toItfValue(v);
    });
    return out;
  }
  return { state: toItfValue(state) };
}

export function paramsToItf(params: Readonly<Record<string, unknown>>): { [name: string]: ItfValue } {
  const out: { [name: string]: ItfValue } = {};
  for (const [k, v] of Object.entries(params)) out[k] = toItfValue(v);
  return out;
}

export function toItf<S>(trace: Trace<S>): ItfTrace {
  // Every parameter name of the trace, so that `mbt::nondetPicks` has one record type in every state.
  const picks = [...new Set(trace.steps.flatMap((s) => Object.keys(s.params)))].sort();
  const states: ItfState[] = trace.steps.map((step) => {
    const meta: ItfStateMeta = {
      index: step.index,
      action: step.action,
      params: paramsToItf(step.params),
      ...(step.events?.actor !== undefined ? { actor: step.events.actor } : {}),
      ...(step.events?.sends?.length ? { sends: step.events.sends } : {}),
      ...(step.events?.receives?.length ? { receives: step.events.receives } : {}),
      ...(step.events?.marks?.length ? { marks: step.events.marks } : {}),
    };
    const params = paramsToItf(step.params);
    const nondet: { [name: string]: ItfValue } = {};
    for (const name of picks) nondet[name] = name in params ? some(params[name]!) : NONE;
    return { '#meta': meta, ...stateVariables(step.state), [ACTION_TAKEN]: step.action, [NONDET_PICKS]: nondet };
  });
  const first = states[0];
  const vars = first ? Object.keys(first).filter((k) => k !== '#meta') : [];
  return {
    '#meta': {
      format: 'ITF',
      'format-description': FORMAT_URL,
      source: 'kmc',
      spec: trace.spec,
      ...(trace.preset !== undefined ? { preset: trace.preset } : {}),
      params: trace.params,
      ...(trace.verdict ? { verdict: trace.verdict } : {}),
      ...(trace.loop?.action !== undefined ? { loopStep: { action: trace.loop.action, params: paramsToItf(trace.loop.params ?? {}) } } : {}),
    },
    vars,
    states,
    ...(trace.loop ? { loop: trace.loop.index } : {}),
  };
}
