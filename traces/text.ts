/**
 * A trace as text for a terminal: numbered steps, each with its action and parameters, then only what
 * changed (the whole state at step 0). Map entries and set elements that changed are listed one by one,
 * so a 25-step Kafka trace stays readable. Coloured with chalk, which turns itself off when piped or
 * when NO_COLOR is set.
 */
import chalk from 'chalk';
import type { ItfState, ItfTrace, ItfValue } from './itf/write.ts';
import { canonicalJson } from './itf/write.ts';
import { describedStep } from './render/steps.ts';

/** Compact human form of an ITF value: `{r1: working}`, `{a, b}`, `[x, y]`, `none`. */
export function formatValue(v: ItfValue): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(formatValue).join(', ')}]`;
  if ('#set' in v) return `{${(v['#set'] as ItfValue[]).map(formatValue).join(', ')}}`;
  if ('#map' in v) return `{${(v['#map'] as [ItfValue, ItfValue][]).map(([k, x]) => `${formatValue(k)}: ${formatValue(x)}`).join(', ')}}`;
  if ('#bigint' in v) return String(v['#bigint']);
  if ('#tup' in v) return `<${(v['#tup'] as ItfValue[]).map(formatValue).join(', ')}>`;
  if ('#unserializable' in v) return String(v['#unserializable']);
  if ('tag' in v && 'value' in v && Object.keys(v).length === 2) {
    if (v.tag === 'None') return 'none';
    // An Option's value reads as the value itself (`votedFor: none → r1`).
    return v.tag === 'Some' ? formatValue(v.value as ItfValue) : `${String(v.tag)}(${formatValue(v.value as ItfValue)})`;
  }
  return `(${Object.entries(v)
    .map(([k, x]) => `${k}: ${formatValue(x as ItfValue)}`)
    .join(', ')})`;
}

/** `HandleVoteResponse(s=r1, m=(…))` */
export function formatStep(action: string, params: ItfState['#meta']['params']): string {
  const entries = Object.entries(params);
  if (entries.length === 0) return action;
  return `${action}(${entries.map(([k, v]) => `${k}=${formatValue(v)}`).join(', ')})`;
}

export interface Change {
  /** `rmState`, or `rmState[r1]` for one entry of a map. */
  readonly path: string;
  readonly before?: ItfValue;
  readonly after?: ItfValue;
  /** For sets: elements added and removed. */
  readonly added?: readonly ItfValue[];
  readonly removed?: readonly ItfValue[];
}

const same = (a: ItfValue | undefined, b: ItfValue | undefined) => canonicalJson(a) === canonicalJson(b);

/** What changed in each variable between two states, as finely as maps and sets allow. */
export function changesBetween(before: ItfState, after: ItfState, vars: readonly string[]): Change[] {
  const out: Change[] = [];
  for (const name of vars) diff(name, before[name] as ItfValue, after[name] as ItfValue, out);
  return out;
}

function diff(path: string, a: ItfValue | undefined, b: ItfValue | undefined, out: Change[]): void {
  if (same(a, b)) return;
  if (isMap(a) && isMap(b)) {
    const keys = new Map<string, ItfValue>();
    for (const [k] of [...a['#map'], ...b['#map']]) keys.set(canonicalJson(k), k);
    const get = (m: { '#map': [ItfValue, ItfValue][] }, key: string) => m['#map'].find(([k]) => canonicalJson(k) === key)?.[1];
    for (const [key, k] of keys) diff(`${path}[${formatValue(k)}]`, get(a, key), get(b, key), out);
    return;
  }
  if (isSet(a) && isSet(b)) {
    const inA = new Set(a['#set'].map(canonicalJson));
    const inB = new Set(b['#set'].map(canonicalJson));
    out.push({
      path,
      added: b['#set'].filter((x) => !inA.has(canonicalJson(x))),
      removed: a['#set'].filter((x) => !inB.has(canonicalJson(x))),
    });
    return;
  }
  if (isRecord(a) && isRecord(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) diff(`${path}.${k}`, (a as { [f: string]: ItfValue })[k], (b as { [f: string]: ItfValue })[k], out);
    return;
  }
  out.push({ path, ...(a !== undefined ? { before: a } : {}), ...(b !== undefined ? { after: b } : {}) });
}

function isMap(v: ItfValue | undefined): v is { '#map': [ItfValue, ItfValue][] } {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && '#map' in v;
}
function isSet(v: ItfValue | undefined): v is { '#set': ItfValue[] } {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && '#set' in v;
}
function isRecord(v: ItfValue | undefined): v is { [k: string]: ItfValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !Object.keys(v).some((k) => k.startsWith('#')) && !('tag' in v && 'value' in v);
}

export interface TextOptions {
  /**
   * Name each step by its action and every parameter in full, even a message record (default: a step
   * whose parameter is a record is named in the spec's own words, `HandleVoteResponse r1 ← r2: …`).
   */
  readonly params?: boolean;
}

export function renderText(trace: ItfTrace, options: TextOptions = {}): string {
  const lines: string[] = [];
  const verdict = trace['#meta'].verdict;
  let previous: ItfState | undefined;
  const vars = trace.vars.filter((v) => !v.startsWith('mbt::'));
  trace.states.forEach((state, i) => {
    const meta = state['#meta'];
    const described = options.params ? undefined : describedStep(meta.action, meta.params, meta);
    // The narration repeats nothing the step's name already says.
    const narration = narrate(meta)
      .filter((part) => described === undefined || !described.includes(part.words))
      .map((part) => part.text)
      .join('; ');
    const loop = trace.loop === i ? chalk.magenta.bold('  ↻ from here the trace repeats forever') : '';
    lines.push(`${chalk.bold.cyan(`Step ${meta.index}`)}  ${chalk.bold(described ?? formatStep(meta.action, meta.params))}${narration ? chalk.dim(`  ${narration}`) : ''}${loop}`);
    if (previous === undefined) {
      for (const v of vars) lines.push(`  ${v} = ${formatValue(state[v] as ItfValue)}`);
    } else {
      const changes = changesBetween(previous, state, vars);
      if (changes.length === 0) lines.push(chalk.dim('  (no change)'));
      for (const c of changes) lines.push(`  ${formatChange(c)}`);
    }
    previous = state;
  });
  const loop = trace.loop;
  if (loop !== undefined) {
    const closing = trace['#meta'].loopStep;
    const last = trace.states.length - 1;
    lines.push(
      chalk.magenta.bold(
        closing !== undefined
          ? `${formatStep(closing.action, closing.params)} leads back to step ${loop}: repeats forever from step ${loop}`
          : loop === last
            ? `The state of step ${last} stays forever (stuttering: nothing fair is left to do)`
            : `↻ After step ${trace.states[last]!['#meta'].index} the trace repeats forever from step ${trace.states[loop]?.['#meta'].index ?? loop}`,
      ),
    );
  }
  if (verdict) {
    const what =
      verdict.kind === 'deadlock' ? 'Deadlock' : verdict.kind === 'error' ? 'Error' : verdict.kind === 'liveness' ? `Temporal property ${verdict.property} violated` : verdict.kind === 'everyStep' ? `Step property ${verdict.property} violated by the last step` : `Invariant ${verdict.property} violated`;
    lines.push(chalk.red.bold(`${what}: ${verdict.description}`));
  }
  return lines.join('\n');
}

function formatChange(c: Change): string {
  if (c.added !== undefined || c.removed !== undefined) {
    const parts = [...(c.added ?? []).map((x) => chalk.green(`+${formatValue(x)}`)), ...(c.removed ?? []).map((x) => chalk.red(`-${formatValue(x)}`))];
    return `${c.path}: ${parts.join(' ')}`;
  }
  const before = c.before === undefined ? chalk.dim('(absent)') : formatValue(c.before);
  const after = c.after === undefined ? chalk.dim('(absent)') : chalk.yellow(formatValue(c.after));
  return `${c.path}: ${before} → ${after}`;
}

/** Each event of a step as text, with the words that identify it. */
function narrate(meta: ItfState['#meta']): { text: string; words: string }[] {
  const parts: { text: string; words: string }[] = [];
  for (const m of meta.marks ?? []) parts.push({ text: `${meta.actor ?? ''} ${m}`.trim(), words: m });
  for (const m of meta.sends ?? []) parts.push({ text: `${m.from} → ${m.to}: ${m.label}`, words: `${m.from} → ${m.to}: ${m.label}` });
  for (const m of meta.receives ?? []) parts.push({ text: `${m.to} ← ${m.from}: ${m.label}`, words: `${m.to} ← ${m.from}: ${m.label}` });
  return parts;
}
