/** The JSON object `kmc check --json` prints: the stable, scriptable form of a result. */
import type { CheckResult } from '../engine/result.ts';
import type { CheckLabel } from '../engine/check.ts';
import { ExitCode } from './exitCodes.ts';
import { toItf, type ItfTrace } from '../../traces/itf/write.ts';

export interface CheckReport {
  readonly status: 'holds' | 'violation' | 'incomplete' | 'error';
  readonly spec: string;
  readonly preset: string | null;
  readonly params: CheckLabel['params'];
  /** The violated property, `Deadlock`, or the first unreached `sometimes` property; null otherwise. */
  readonly property: string | null;
  readonly kind: 'always' | 'everyStep' | 'deadlock' | 'sometimes' | 'liveness' | null;
  readonly unreached: readonly string[];
  readonly witnesses: readonly string[];
  readonly reason: string | null;
  readonly message: string | null;
  readonly distinct: number;
  readonly generated: number;
  readonly depth: number;
  readonly traceLength: number | null;
  readonly seconds: number;
  readonly cpuSeconds: number;
  readonly collisionProbability: number;
  readonly bytesPerState: number;
  readonly tablesAtStartSize: boolean;
  readonly processBytesPerState: number;
  readonly peakMemoryBytes: number;
  readonly workers: number;
  /** Owners the search was partitioned among (--owners), when it was. */
  readonly owners?: number;
  /** What went between the owners (--owners, or --workers N: N owner threads): batches, bytes, and per level the median milliseconds of each phase. */
  readonly ownership?: CheckResult<unknown>['stats']['ownership'];
  readonly spilledBytes: number;
  readonly coverage: CheckResult<unknown>['stats']['coverage'];
  readonly trace: ItfTrace | null;
}

export function toReport(result: CheckResult<unknown>, label: CheckLabel): CheckReport {
  const s = result.stats;
  const trace = 'trace' in result && result.trace ? toItf(result.trace) : null;
  return {
    status: result.status,
    spec: label.spec,
    preset: label.preset ?? null,
    params: label.params,
    property: result.status === 'violation' ? result.property : null,
    kind: result.status === 'violation' ? result.kind : null,
    unreached: result.status === 'violation' ? (result.unreached ?? []) : [],
    witnesses: result.status === 'error' ? [] : result.witnesses,
    reason: result.status === 'incomplete' ? result.reason : null,
    message: result.status === 'error' ? result.message : result.status === 'incomplete' ? (result.note ?? null) : null,
    distinct: s.distinct,
    generated: s.generated,
    depth: s.depth,
    traceLength: trace ? trace.states.length : null,
    seconds: Math.round(s.seconds * 1000) / 1000,
    cpuSeconds: Math.round(s.cpuSeconds * 1000) / 1000,
    collisionProbability: s.collisionProbability,
    bytesPerState: s.bytesPerState,
    tablesAtStartSize: s.tablesAtStartSize,
    processBytesPerState: s.processBytesPerState,
    peakMemoryBytes: s.peakMemoryBytes,
    workers: s.workers,
    ...(s.owners !== undefined ? { owners: s.owners } : {}),
    ...(s.ownership !== undefined ? { ownership: s.ownership } : {}),
    spilledBytes: s.spilledBytes,
    coverage: s.coverage,
    trace,
  };
}

export function exitCodeOf(result: CheckResult<unknown>): ExitCode {
  switch (result.status) {
    case 'holds':
      return ExitCode.Holds;
    case 'violation':
      return ExitCode.Violation;
    case 'incomplete':
      return ExitCode.Incomplete;
    case 'error':
      return ExitCode.SpecError;
  }
}
