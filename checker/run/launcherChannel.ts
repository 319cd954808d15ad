/**
 * What a command running under kmc's launcher (launcher.mjs) tells it: the progress so far, which the
 * launcher prints if it must end a search whose spec code never returns, and the deadline it enforces.
 * Nothing is sent when the command runs in-process (tests, programs that embed kmc).
 */
import type { Progress } from '../engine/result.ts';
import type { FoundVerdict } from '../engine/options.ts';

export type ToLauncher =
  | { readonly kind: 'stats'; readonly distinct: number; readonly generated: number; readonly depth: number; readonly seconds: number }
  | { readonly kind: 'deadline'; readonly at: number; readonly what: string }
  | { readonly kind: 'no-deadline' }
  /** A stop is deferred to the end of the level for a last checkpoint: the child keeps reporting progress. */
  | { readonly kind: 'finishing' }
  /**
   * The search has its verdict and rebuilds its counterexample, which runs the spec's steps again: no
   * limit ends that, and if the spec's code never returns the launcher still reports the verdict.
   */
  | ({ readonly kind: 'verdict' } & FoundVerdict);

/** How often the launcher hears of progress. */
export const STATS_INTERVAL_MS = 250;

export function underLauncher(): boolean {
  return typeof process.send === 'function' && process.connected === true;
}

export function tellLauncher(message: ToLauncher): void {
  if (!underLauncher()) return;
  try {
    process.send!(message);
  } catch {
    // The launcher is gone: the disconnect handler ends this process.
  }
}

/** The launcher's deadline for a time limit of `seconds` (named `what` in its message) from now. */
export function announceDeadline(seconds: number | undefined, what: string): void {
  if (seconds !== undefined) tellLauncher({ kind: 'deadline', at: Date.now() + seconds * 1000, what });
}

/**
 * A progress callback that also keeps the launcher informed four times a second, calling `show` only every
 * `showEveryMs` (the display's own pace).
 */
export function progressWithLauncher(show: ((p: Progress) => void) | undefined, showEveryMs: number): { onProgress?: (p: Progress) => void; progressIntervalMs: number } {
  if (!underLauncher()) return { ...(show ? { onProgress: show } : {}), progressIntervalMs: showEveryMs };
  let shownAt = 0;
  return {
    progressIntervalMs: Math.min(showEveryMs, STATS_INTERVAL_MS),
    onProgress: (p) => {
      tellLauncher({ kind: 'stats', distinct: p.distinct, generated: p.generated, depth: p.depth, seconds: p.seconds });
      if (show && p.seconds * 1000 - shownAt >= showEveryMs - 1) {
        shownAt = p.seconds * 1000;
        show(p);
      }
    },
  };
}

/** Tells the launcher of a verdict found (CheckOptions.onVerdict), before its counterexample is rebuilt. */
export function verdictToLauncher(verdict: FoundVerdict): void {
  tellLauncher({ kind: 'verdict', ...verdict });
}
