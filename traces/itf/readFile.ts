/**
 * Reads an `.itf.json` trace file for `kmc replay` and `kmc render`, with one clear error for a missing,
 * unreadable or malformed file. Replay needs more than drawing does: every state must say which action
 * with which parameters produced it, as kmc's own traces do.
 */
import { readFileSync } from 'node:fs';
import type { ItfTrace } from './write.ts';
import { ItfFormatError, parseItf } from './parse.ts';
import { UserError } from '../../checker/run/userError.ts';

export type TraceUse = 'replay' | 'render';

export function readItf(path: string, use: TraceUse = 'replay'): ItfTrace {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'there is no such file' : code === 'EISDIR' ? 'it is a folder' : (e as Error).message;
    throw new UserError(`Cannot read the trace ${path}: ${why}. Give the path of an .itf.json trace, as written by kmc check --out DIR or kmc simulate --out DIR.`);
  }
  let trace: ItfTrace;
  try {
    trace = parseItf(text);
  } catch (e) {
    if (!(e instanceof ItfFormatError)) throw e;
    throw new UserError(
      use === 'render'
        ? `${path} is not a trace kmc can render: ${e.message}. kmc render reads ITF traces (.itf.json, Apalache ADR-015) as written by kmc check --out, kmc simulate, Apalache or Quint.`
        : `${path} is not a trace kmc can replay: ${e.message}.`,
    );
  }
  const problem = use === 'replay' ? replayProblem(trace) : null;
  if (problem) throw new UserError(`${path} is not a trace kmc can replay: ${problem}. kmc replay needs the action and parameters of each step, as kmc check --out writes them.`);
  return trace;
}

/** What a trace lacks for replay (each state's action, parameters and index), or null. */
function replayProblem(trace: ItfTrace): string | null {
  for (const [i, s] of trace.states.entries()) {
    const meta = s['#meta'] as Partial<ItfTrace['states'][number]['#meta']> | undefined;
    if (meta === undefined) return `states[${i}] has no "#meta" with the action taken`;
    if (typeof meta.action !== 'string') return `states[${i}]["#meta"].action must be the action's name`;
    if (typeof meta.params !== 'object' || meta.params === null || Array.isArray(meta.params)) return `states[${i}]["#meta"].params must be an object`;
    if (meta.index !== i) return `states[${i}]["#meta"].index must be ${i}`;
  }
  return null;
}
