/** Reads an `.itf.json` file written by kmc, with a clear error for a missing, unreadable or malformed file. */
import { readFileSync } from 'node:fs';
import type { ItfTrace } from '../traces/itf.ts';
import { UserError } from './userError.ts';

export function readItf(path: string): ItfTrace {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(`Cannot read the trace file ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (e as Error).message}. Give the path of an .itf.json file written by kmc check --out or kmc simulate --out.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new UserError(`The trace file ${path} is not valid JSON (${(e as Error).message}). An ITF trace is a JSON object with "vars" and "states".`);
  }
  const problem = itfProblem(json);
  if (problem) throw new UserError(`The trace file ${path} is not an ITF trace kmc can replay: ${problem}.`);
  return json as ItfTrace;
}

/** What is wrong with the value as an ITF trace, or null. */
export function itfProblem(json: unknown): string | null {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return 'the top level must be a JSON object';
  const t = json as Record<string, unknown>;
  if (!Array.isArray(t.vars) || !t.vars.every((v) => typeof v === 'string')) return '"vars" must be an array of variable names';
  if (!Array.isArray(t.states) || t.states.length === 0) return '"states" must be a non-empty array';
  for (const [i, s] of (t.states as unknown[]).entries()) {
    if (typeof s !== 'object' || s === null) return `states[${i}] must be an object`;
    const meta = (s as Record<string, unknown>)['#meta'] as Record<string, unknown> | undefined;
    if (typeof meta !== 'object' || meta === null) return `states[${i}] has no "#meta" with the action taken`;
    if (typeof meta.action !== 'string') return `states[${i}]["#meta"].action must be the action's name`;
    if (typeof meta.params !== 'object' || meta.params === null || Array.isArray(meta.params)) return `states[${i}]["#meta"].params must be an object`;
    if (meta.index !== i) return `states[${i}]["#meta"].index must be ${i}`;
    for (const v of t.vars as string[]) if (!(v in (s as object))) return `states[${i}] lacks the variable "${v}"`;
  }
  return null;
}
