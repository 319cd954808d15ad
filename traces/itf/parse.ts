/**
 * Reads an `.itf.json` file and checks its shape before anything is drawn, so a bad file is reported as
 * "states[3].#meta.sends[0].to must be a string" rather than as a crash deep inside a renderer.
 * Accepts kmc's own traces and plain ITF from Apalache or Quint (whose states may lack kmc's `#meta`).
 */
import type { ItfTrace } from './write.ts';

/** The file is not an ITF trace; `message` says where and what is wrong. */
export class ItfFormatError extends Error {}

export function parseItf(text: string): ItfTrace {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new ItfFormatError(`it is not valid JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  validateItf(data);
  return data;
}

export function validateItf(data: unknown): asserts data is ItfTrace {
  if (!isObject(data)) throw new ItfFormatError(`the top level must be a JSON object with a "states" array, found ${kindOf(data)}`);
  if (!Array.isArray(data.states)) throw new ItfFormatError(`the top-level "states" must be an array of states, found ${kindOf(data.states)}`);
  if (data.states.length === 0) throw new ItfFormatError('"states" is empty: a trace has at least its initial state');
  if (data.vars !== undefined && !(Array.isArray(data.vars) && data.vars.every((v) => typeof v === 'string'))) {
    throw new ItfFormatError('"vars" must be an array of variable names (strings)');
  }
  if (data.loop !== undefined && !(Number.isInteger(data.loop) && (data.loop as number) >= 0 && (data.loop as number) < data.states.length)) {
    throw new ItfFormatError(`"loop" must be the index of the state the trace repeats from (0 to ${data.states.length - 1}), found ${kindOf(data.loop)}`);
  }
  const meta = data['#meta'];
  if (meta !== undefined) {
    if (!isObject(meta)) throw new ItfFormatError(`the top-level "#meta" must be an object, found ${kindOf(meta)}`);
    if (meta.verdict !== undefined) {
      const v = meta.verdict;
      if (!isObject(v) || typeof v.property !== 'string' || typeof v.description !== 'string' || typeof v.kind !== 'string') {
        throw new ItfFormatError('"#meta.verdict" must be an object with string fields kind, property and description');
      }
    }
    if (meta.params !== undefined && !isObject(meta.params)) throw new ItfFormatError('"#meta.params" must be an object of parameter values');
  }
  data.states.forEach((s, i) => validateState(s, i));
  if (data.loop !== undefined && !(Number.isInteger(data.loop) && (data.loop as number) >= 0 && (data.loop as number) < data.states.length)) {
    throw new ItfFormatError(`"loop" must be the index of a state (0 to ${data.states.length - 1}) the trace returns to, found ${kindOf(data.loop)}`);
  }
}

function validateState(s: unknown, i: number): void {
  const at = `states[${i}]`;
  if (!isObject(s)) throw new ItfFormatError(`${at} must be an object of state variables, found ${kindOf(s)}`);
  for (const [name, v] of Object.entries(s)) {
    if (name !== '#meta') validateValue(v, `${at}.${name}`);
  }
  const meta = s['#meta'];
  if (meta === undefined) return;
  if (!isObject(meta)) throw new ItfFormatError(`${at}.#meta must be an object, found ${kindOf(meta)}`);
  const m = `${at}.#meta`;
  if (meta.index !== undefined && !Number.isInteger(meta.index)) throw new ItfFormatError(`${m}.index must be a whole number, found ${kindOf(meta.index)}`);
  if (meta.action !== undefined && typeof meta.action !== 'string') throw new ItfFormatError(`${m}.action must be the action's name (a string), found ${kindOf(meta.action)}`);
  if (meta.actor !== undefined && typeof meta.actor !== 'string') throw new ItfFormatError(`${m}.actor must be a string, found ${kindOf(meta.actor)}`);
  if (meta.params !== undefined) {
    if (!isObject(meta.params)) throw new ItfFormatError(`${m}.params must be an object, found ${kindOf(meta.params)}`);
    for (const [k, v] of Object.entries(meta.params)) validateValue(v, `${m}.params.${k}`);
  }
  for (const key of ['sends', 'receives'] as const) {
    const list = meta[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new ItfFormatError(`${m}.${key} must be an array of messages {from, to, label}, found ${kindOf(list)}`);
    list.forEach((msg, j) => {
      if (!isObject(msg)) throw new ItfFormatError(`${m}.${key}[${j}] must be a message {from, to, label}, found ${kindOf(msg)}`);
      for (const f of ['from', 'to', 'label'] as const) {
        if (typeof msg[f] !== 'string') throw new ItfFormatError(`${m}.${key}[${j}].${f} must be a string, found ${kindOf(msg[f])}`);
      }
    });
  }
  if (meta.marks !== undefined && !(Array.isArray(meta.marks) && meta.marks.every((x) => typeof x === 'string'))) {
    throw new ItfFormatError(`${m}.marks must be an array of strings (e.g. "crash", "timeout")`);
  }
}

function validateValue(v: unknown, at: string): void {
  if (typeof v === 'string' || typeof v === 'boolean') return;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new ItfFormatError(`${at} is not a finite number`);
    return;
  }
  if (Array.isArray(v)) {
    v.forEach((x, i) => validateValue(x, `${at}[${i}]`));
    return;
  }
  if (!isObject(v)) throw new ItfFormatError(`${at} must be an ITF value (string, number, boolean, array or object), found ${kindOf(v)}`);
  if ('#set' in v || '#tup' in v) {
    const key = '#set' in v ? '#set' : '#tup';
    const items = v[key];
    if (!Array.isArray(items)) throw new ItfFormatError(`${at}.${key} must be an array, found ${kindOf(items)}`);
    items.forEach((x, i) => validateValue(x, `${at}.${key}[${i}]`));
    return;
  }
  if ('#map' in v) {
    const entries = v['#map'];
    if (!Array.isArray(entries)) throw new ItfFormatError(`${at}.#map must be an array of [key, value] pairs, found ${kindOf(entries)}`);
    entries.forEach((e, i) => {
      if (!Array.isArray(e) || e.length !== 2) throw new ItfFormatError(`${at}.#map[${i}] must be a [key, value] pair`);
      validateValue(e[0], `${at}.#map[${i}][0]`);
      validateValue(e[1], `${at}.#map[${i}][1]`);
    });
    return;
  }
  if ('#bigint' in v) {
    if (typeof v['#bigint'] !== 'string' || !/^-?\d+$/.test(v['#bigint'])) throw new ItfFormatError(`${at}.#bigint must be a string of digits`);
    return;
  }
  if ('#unserializable' in v) return;
  for (const [k, x] of Object.entries(v)) validateValue(x, `${at}.${k}`);
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function kindOf(x: unknown): string {
  if (x === undefined) return 'nothing';
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'an array';
  return typeof x === 'object' ? 'an object' : `${typeof x} ${JSON.stringify(x)}`.slice(0, 60);
}
