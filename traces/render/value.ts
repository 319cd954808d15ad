/**
 * ITF values as short TLA+ text, the notation TLC prints states in: records `[f |-> v]`, sets `{a, b}`,
 * sequences `<<a, b>>`, functions `(k :> v @@ ...)`. Maps keyed by strings print as records because that
 * is how a Kafka engineer reads `brokers`, `isr` or `epochs`. Quint options print as `None` / `Some(v)`.
 */
import type { ItfValue } from '../itf/write.ts';

/** True for a Quint variant `{tag, value}` (kmc writes `null` as the variant `None`). */
export function isVariant(v: ItfValue): v is { tag: string; value: ItfValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { tag?: unknown }).tag === 'string' && 'value' in v && Object.keys(v).length === 2;
}

/** True for an ITF record: a plain object that is none of the `#`-tagged encodings nor a variant. */
export function isRecordValue(v: ItfValue): v is { [field: string]: ItfValue } {
  if (typeof v !== 'object' || v === null || Array.isArray(v) || isVariant(v)) return false;
  for (const k in v) if (k.startsWith('#')) return false;
  return true;
}

export function formatValue(v: ItfValue): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') return String(v);
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (Array.isArray(v)) return `<<${v.map(formatValue).join(', ')}>>`;
  if (v === null || typeof v !== 'object') return String(v);
  if ('#set' in v) return `{${(v['#set'] as ItfValue[]).map(formatValue).join(', ')}}`;
  if ('#map' in v) {
    const entries = v['#map'] as [ItfValue, ItfValue][];
    if (entries.length === 0) return '<<>>';
    if (entries.every(([k]) => typeof k === 'string')) return `[${entries.map(([k, x]) => `${k as string} |-> ${formatValue(x)}`).join(', ')}]`;
    return `(${entries.map(([k, x]) => `${formatValue(k)} :> ${formatValue(x)}`).join(' @@ ')})`;
  }
  if ('#bigint' in v) return String(v['#bigint']);
  if ('#tup' in v) return `<<${(v['#tup'] as ItfValue[]).map(formatValue).join(', ')}>>`;
  if ('#unserializable' in v) return String(v['#unserializable']);
  if (isVariant(v)) {
    const inner = v.value;
    const empty = typeof inner === 'object' && inner !== null && '#tup' in inner && (inner['#tup'] as ItfValue[]).length === 0;
    return empty ? v.tag : `${v.tag}(${formatValue(inner)})`;
  }
  return `[${Object.entries(v).map(([k, x]) => `${k} |-> ${formatValue(x)}`).join(', ')}]`;
}

/** A map key as it appears in a field path: bare when it reads as a name, TLA+ text otherwise. */
export function formatKey(k: ItfValue): string {
  if (typeof k === 'string' && /^[A-Za-z0-9_.:-]+$/.test(k)) return k;
  return formatValue(k);
}

/** Cuts text to `max` characters with an ellipsis, for labels that must stay on one line. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}
