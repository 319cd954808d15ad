/**
 * TLC side by side (optional): TLC's TwoPhase from the TLA+ Examples, run on this machine in the same
 * bench, so the ratio to kmc is measured in one run rather than against a figure from another day.
 * Set KMC_BENCH_TLC to the command that starts TLC (e.g. `java -XX:+UseParallelGC -cp tla2tools.jar
 * tlc2.TLC`) and KMC_BENCH_TLC_TWOPHASE to the path of `TwoPhase.tla` (its `TCommit.tla` beside it).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface TlcFigures {
  readonly distinct: number;
  readonly generated: number;
  readonly depth: number;
  readonly seconds: number;
}

/** The TLC command and spec from the environment, or null when the comparison is not configured. */
export function tlcFromEnvironment(): { command: string; twoPhase: string } | null {
  const command = process.env.KMC_BENCH_TLC;
  const twoPhase = process.env.KMC_BENCH_TLC_TWOPHASE;
  return command && twoPhase ? { command, twoPhase } : null;
}

/** Runs TLC's TwoPhase with `rm` resource managers and `workers` workers; wall-clock seconds. */
export function runTlcTwoPhase(tlc: { command: string; twoPhase: string }, rm: number, workers: number): TlcFigures {
  const dir = mkdtempSync(join(tmpdir(), 'kmc-bench-tlc-'));
  try {
    for (const f of ['TwoPhase.tla', 'TCommit.tla']) copyFileSync(join(dirname(tlc.twoPhase), f), join(dir, f));
    const ids = Array.from({ length: rm }, (_, i) => `r${i + 1}`).join(', ');
    writeFileSync(join(dir, 'MC.cfg'), `CONSTANT RM = {${ids}}\nINVARIANT TPTypeOK\nSPECIFICATION TPSpec\n`);
    const [exe, ...args] = tlc.command.split(/\s+/).filter(Boolean);
    const started = performance.now();
    const r = spawnSync(exe!, [...args, '-workers', String(workers), '-config', 'MC.cfg', '-metadir', join(dir, 'states'), 'TwoPhase.tla'], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 26 });
    const seconds = (performance.now() - started) / 1000;
    const found = /([\d,]+) states generated, ([\d,]+) distinct states found/.exec(r.stdout);
    const depth = /depth of the complete state graph search is (\d+)/.exec(r.stdout);
    if (found === null || depth === null) throw new Error(`TLC did not finish TwoPhase rm=${rm} (exit ${r.status}): ${(r.stderr || r.stdout).slice(-400)}`);
    const n = (s: string) => Number(s.replace(/,/g, ''));
    return { generated: n(found[1]!), distinct: n(found[2]!), depth: Number(depth[1]), seconds };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
