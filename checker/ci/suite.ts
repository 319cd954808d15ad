/**
 * A CI suite: the checks a protocol design must keep passing, each with the verdict it must have and the
 * budget it may spend. Written as YAML or JSON (see `kmc-suite.schema.json`); `loadSuite` reads and
 * validates one, and every mistake it finds is reported with the file, line and field.
 */
import type { Expectation, ParamValue } from '../../spec/spec.ts';

export const SUITE_VERSION = 1;

/** What one check may spend. A check that runs out fails the gate unless it is `bounded`. */
export interface Budget {
  readonly timeSeconds?: number;
  readonly maxStates?: number;
  readonly maxDepth?: number;
}

export interface SuiteCheck {
  /** Unique within the suite; names the check in tables, JUnit and the baseline. */
  readonly name: string;
  /** The spec as written in the suite (a bundled name or a path). */
  readonly spec: string;
  /** A bundled name, or the absolute path of the spec module (paths are relative to the suite file). */
  readonly specRef: string;
  readonly preset?: string;
  readonly params: Readonly<Record<string, ParamValue>>;
  readonly expect: Expectation;
  readonly budget: Budget;
  /**
   * Explores only up to `maxStates`/`maxDepth`: reaching that bound without a violation passes. For
   * presets too large to check exhaustively on every change. Deterministic, because the bound is a state
   * or depth count, never time.
   */
  readonly bounded: boolean;
  readonly options: { readonly deadlock?: boolean; readonly symmetry?: boolean };
  /** Relative change of distinct states, depth or counterexample length tolerated before drift is flagged. */
  readonly tolerance: number;
  /** Present when the check is listed but not run; the reason is shown in the reports. */
  readonly skip?: string;
  /** 1-based line of the check in the suite file, for annotations. */
  readonly line: number;
}

/** One side of a suite diff: a preset and parameters over it. */
export interface DiffVariant {
  readonly preset?: string;
  readonly params: Readonly<Record<string, ParamValue>>;
}

/**
 * A design diff in the suite (`kmc diff` as a gate): variant B against variant A of one spec, with the
 * properties B must fix (A violates them, B does not) and break (the other way round). Any other change
 * of verdict, or a listed one that does not happen, fails the gate.
 */
export interface SuiteDiff {
  readonly name: string;
  readonly spec: string;
  readonly specRef: string;
  readonly a: DiffVariant;
  readonly b: DiffVariant;
  readonly expect: { readonly fixes: readonly string[]; readonly breaks: readonly string[] };
  readonly line: number;
}

export interface Suite {
  /** Absolute path of the suite file. */
  readonly path: string;
  /** Absolute path of the baseline file. */
  readonly baselinePath: string;
  readonly checks: readonly SuiteCheck[];
  readonly diffs?: readonly SuiteDiff[];
}

/** Budget of a check that names none, and no suite default: generous, but never unbounded. */
export const DEFAULT_TIME_SECONDS = 300;
/** Drift tolerance when the suite names none: 10% of distinct states, depth or counterexample length. */
export const DEFAULT_TOLERANCE = 0.1;

export function describeExpectation(e: Expectation): string {
  return e.verdict === 'holds' ? 'holds' : `violates ${e.property}`;
}
