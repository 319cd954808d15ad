/**
 * Every `kmc` command by name, with a one-line summary and its module loaded on demand: `kmc --help`
 * prints this table without loading any command, `kmc check` does not pay for the renderers.
 */
import type { KmcCommand } from './command.ts';

export interface CommandEntry {
  readonly usage: string;
  readonly summary: string;
  readonly load: () => Promise<KmcCommand>;
}

export const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  list: { usage: 'list', summary: 'the bundled specs with their parameters and presets', load: async () => (await import('./commands/list.ts')).listCommand },
  check: { usage: 'check <spec>', summary: 'explore every reachable state and check every property', load: async () => (await import('./commands/check.ts')).checkCommand },
  simulate: { usage: 'simulate <spec>', summary: 'random walks; a violation found is shrunk', load: async () => (await import('./commands/simulate.ts')).simulateCommand },
  replay: { usage: 'replay <spec> <trace>', summary: 're-execute a saved .itf.json trace', load: async () => (await import('./commands/replay.ts')).replayCommand },
  render: { usage: 'render <trace>', summary: 'draw a saved trace: text, DOT, SVG, sequence chart, HTML', load: async () => (await import('./commands/render.ts')).renderCommand },
  ci: { usage: 'ci [suite]', summary: 'check a suite against expected verdicts and a baseline', load: async () => (await import('./commands/ci.ts')).ciCommand },
  diff: { usage: 'diff <spec>', summary: 'check two variants of a design side by side: what B fixes and what it breaks', load: async () => (await import('./commands/diff.ts')).diffCommand },
  layout: { usage: 'layout suggest <spec>', summary: 'suggest a state layout for a spec kept on Immutable.js, from the states it reaches', load: async () => (await import('./commands/layout.ts')).layoutCommand },
  worker: { usage: 'worker <cluster>', summary: 'own part of searches run on a cluster (kmc check --cluster … --owners N)', load: async () => (await import('./commands/worker.ts')).workerCommand },
  runs: { usage: 'runs <cluster>', summary: 'the runs a NATS server holds (searches kept for --resume-run), and dropping them', load: async () => (await import('./commands/runs.ts')).runsCommand },
  init: { usage: 'init [dir]', summary: 'start a spec project: package.json, an example spec, a suite and a CI workflow', load: async () => (await import('./commands/init.ts')).initCommand },
};

export const COMMAND_NAMES = Object.keys(COMMANDS);
