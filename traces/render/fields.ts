/**
 * A state as a flat list of fields, so a step can say exactly which field changed: records and maps are
 * opened up (`brokers[b1].leaderEpoch`, `rmState[r2]`), and so are sequences of entities (records of four
 * or more fields, such as a broker list: `brokers[0].hw`). Sets, options and sequences of small values
 * (a log of (epoch, value) entries) stay whole: a changed ISR or an appended entry is one changed field,
 * not a reshuffle of positions.
 */
import { canonicalJson, type ItfValue } from '../itf/write.ts';
import { formatKey, formatValue, isRecordValue } from './value.ts';

export interface Field {
  readonly path: string;
  readonly value: ItfValue;
}

export type StateVars = { readonly [name: string]: ItfValue };

export function flattenState(vars: StateVars): Field[] {
  const out: Field[] = [];
  for (const [name, v] of Object.entries(vars)) flattenInto(name, v, out);
  return out;
}

function flattenInto(path: string, v: ItfValue, out: Field[]): void {
  if (isRecordValue(v) && Object.keys(v).length > 0) {
    for (const [k, x] of Object.entries(v)) flattenInto(`${path}.${k}`, x, out);
    return;
  }
  if (typeof v === 'object' && v !== null && !Array.isArray(v) && '#map' in v) {
    const entries = v['#map'] as [ItfValue, ItfValue][];
    if (entries.length > 0) {
      for (const [k, x] of entries) flattenInto(`${path}[${formatKey(k)}]`, x, out);
      return;
    }
  }
  if (Array.isArray(v) && v.length > 0 && v.every((x) => isRecordValue(x) && Object.keys(x).length >= ENTITY_FIELDS)) {
    v.forEach((x, i) => flattenInto(`${path}[${i}]`, x, out));
    return;
  }
  out.push({ path, value: v });
}

/** Records with at least this many fields are entities (a broker, a replica) worth opening in a sequence. */
const ENTITY_FIELDS = 4;

export type FieldChange = 'added' | 'removed' | 'changed';

export interface FieldRow {
  readonly path: string;
  /** TLA+ text of the value in this state (absent when the field was removed). */
  readonly value?: string;
  /** TLA+ text of the value in the previous state, when it differs. */
  readonly was?: string;
  readonly change?: FieldChange;
  /** For a changed set: the elements added (`+ x`) and removed (`− y`), which say more than the whole set. */
  readonly delta?: string;
}

/**
 * The fields of `after`, each marked with how it differs from `before` (no mark at the initial state).
 * Removed fields come after the field that preceded them, so the table keeps the state's shape.
 */
export function diffFields(before: StateVars | undefined, after: StateVars): FieldRow[] {
  const now = flattenState(after);
  if (before === undefined) return now.map((f) => ({ path: f.path, value: formatValue(f.value) }));
  const prev = flattenState(before);
  const prevByPath = new Map(prev.map((f) => [f.path, f.value]));
  const nowPaths = new Set(now.map((f) => f.path));
  const rows: FieldRow[] = [];
  for (const f of now) {
    const old = prevByPath.get(f.path);
    const value = formatValue(f.value);
    if (old === undefined) rows.push({ path: f.path, value, change: 'added' });
    else if (canonicalJson(old) !== canonicalJson(f.value)) {
      const delta = setDelta(old, f.value);
      rows.push({ path: f.path, value, was: formatValue(old), change: 'changed', ...(delta ? { delta } : {}) });
    }
    else rows.push({ path: f.path, value });
  }
  // Re-insert removed fields after their predecessor in the previous state.
  let insertAt = 0;
  for (const f of prev) {
    if (nowPaths.has(f.path)) {
      insertAt = rows.findIndex((r) => r.path === f.path) + 1;
      continue;
    }
    rows.splice(insertAt, 0, { path: f.path, was: formatValue(f.value), change: 'removed' });
    insertAt++;
  }
  return rows;
}

/** Paths of the fields that differ between two states, in state order. */
export function changedPaths(before: StateVars | undefined, after: StateVars): string[] {
  if (before === undefined) return [];
  return diffFields(before, after)
    .filter((r) => r.change !== undefined)
    .map((r) => r.path);
}

/** `+ a, + b, − c` between two ITF sets, or undefined when either value is not a set. */
export function setDelta(before: ItfValue, after: ItfValue): string | undefined {
  const items = (v: ItfValue) => (typeof v === 'object' && v !== null && !Array.isArray(v) && '#set' in v ? (v['#set'] as ItfValue[]) : undefined);
  const a = items(before);
  const b = items(after);
  if (a === undefined || b === undefined) return undefined;
  const inA = new Set(a.map(canonicalJson));
  const inB = new Set(b.map(canonicalJson));
  const parts = [
    ...b.filter((x) => !inA.has(canonicalJson(x))).map((x) => `+ ${formatValue(x)}`),
    ...a.filter((x) => !inB.has(canonicalJson(x))).map((x) => `− ${formatValue(x)}`),
  ];
  return parts.join(', ');
}
