/**
 * Progress of a long run on stderr: one live, rewritten line on a terminal; a plain line every ten
 * seconds otherwise (CI logs); nothing with --quiet.
 */
import type { Progress } from '../engine/result.ts';

export interface ProgressDisplay {
  readonly onProgress?: (p: Progress) => void;
  readonly progressIntervalMs: number;
  /** Clears the live line before the result is printed. */
  done(): void;
}

export function progressDisplay(quiet: boolean, stream: NodeJS.WriteStream = process.stderr): ProgressDisplay {
  if (quiet) return { progressIntervalMs: 1000, done: () => {} };
  const live = stream.isTTY === true;
  let shown = false;
  return {
    progressIntervalMs: live ? 250 : 10_000,
    onProgress: (p) => {
      const line = formatProgress(p);
      if (live) {
        // A line longer than the terminal wraps, and the next refresh clears only its last row.
        const width = stream.columns ?? 80;
        stream.write(`\r\x1b[2K${line.length >= width ? `${line.slice(0, Math.max(0, width - 2))}…` : line}`);
        shown = true;
      } else stream.write(`${line}\n`);
    },
    done: () => {
      if (shown) stream.write('\r\x1b[2K');
    },
  };
}

export function formatProgress(p: Progress): string {
  const rate = p.seconds > 0 ? Math.round(p.distinct / p.seconds) : 0;
  return `${fmt(p.distinct)} distinct, ${fmt(p.generated)} generated, ${fmt(p.queued)} queued, depth ${p.depth}, ${fmt(rate)} states/s, ${p.seconds.toFixed(0)} s`;
}

/**
 * `n` rounded, with thousands separators as `toLocaleString('en-US')` writes them. Integers are grouped
 * here: the first `toLocaleString` of a process sets up the locale's number formats, which took longer
 * than a short check's whole report.
 */
export function fmt(n: number): string {
  const r = Math.round(n);
  if (!Number.isSafeInteger(r) || Object.is(r, -0)) return r.toLocaleString('en-US');
  return String(r).replace(/\B(?=(\d{3})+$)/g, ',');
}
