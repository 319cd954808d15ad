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

export const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
