/**
 * A state as a flat list of fields, so a step can say exactly which field changed: records and maps are
 * opened up (`brokers[b1].leaderEpoch`, `rmState[r2]`), while sets, sequences and options stay whole
 * (a changed ISR is one changed field, not a reshuffle of positions).
 */
import { canonicalJson, type ItfValue } from '../itf.ts';
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
  out.push({ path, value: v });
}

export type FieldChange = 'added' | 'removed' | 'changed';

export interface FieldRow {
  readonly path: string;
  /** TLA+ text of the value in this state (absent when the field was removed). */
  readonly value?: string;
  /** TLA+ text of the value in the previous state, when it differs. */
  readonly was?: string;
  readonly change?: FieldChange;
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
    else if (canonicalJson(old) !== canonicalJson(f.value)) rows.push({ path: f.path, value, was: formatValue(old), change: 'changed' });
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
