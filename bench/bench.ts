/**
 * `npm run bench`: throughput and memory of the checker on the bench models, each run in a fresh
 * process with one worker and with every core, so the worker speed-up is measured, not assumed.
 * `npm run bench -- --quick` uses smaller sizes; `-- --only NAME` runs one model.
 */
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

interface BenchCase {
  readonly name: string;
  readonly args: readonly string[];
  readonly quickArgs?: readonly string[];
}

const CASES: readonly BenchCase[] = [
  { name: 'twophase rm=8', args: ['twophase', '--param', 'rm=8'], quickArgs: ['twophase', '--param', 'rm=7'] },
  // The same state space with the state packed into a number: the checker without Immutable.js.
  { name: 'twophase-packed rm=8', args: ['bench/twoPhasePacked.ts', '--param', 'rm=8'], quickArgs: ['bench/twoPhasePacked.ts', '--param', 'rm=7'] },
  { name: 'kraft-bench', args: ['kraft', '--preset', 'kraft-bench'] },
  { name: 'replication-bench', args: ['replication', '--preset', 'replication-bench'] },
  // A packed-layout spec: the KIP-631 lifecycle's final design, exhaustive.
  { name: 'lifecycle kip631-final', args: ['lifecycle', '--preset', 'kip631-final'], quickArgs: ['lifecycle', '--preset', 'kip903-broker-epochs'] },
];

const bin = fileURLToPath(new URL('../checker/cli/bin.mjs', import.meta.url));
const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : undefined;
const cores = availableParallelism();

interface Figures {
  status: string;
  distinct: number;
  generated: number;
  depth: number;
  seconds: number;
  bytesPerState: number;
  peakMemoryBytes: number;
}

function run(args: readonly string[], workers: number): Figures {
  const r = spawnSync(process.execPath, [bin, 'check', ...args, '--json', '--quiet', '--workers', String(workers)], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0 && r.status !== 1) throw new Error(`kmc check ${args.join(' ')} failed (exit ${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as Figures;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
console.log(`kmc bench — ${cores} cores, Node ${process.version}${quick ? ', quick sizes' : ''}`);
console.log(['model', 'verdict', 'distinct', 'generated', 'depth', 'seconds', 'distinct/s', 'generated/s', 'bytes/state', 'peak RSS MB', `seconds (${cores} workers)`, 'speed-up'].join(' | '));
for (const c of CASES) {
  if (only && !c.name.includes(only)) continue;
  const args = quick && c.quickArgs ? c.quickArgs : c.args;
  const one = run(args, 1);
  const many = cores > 1 ? run(args, cores) : one;
  if (many.distinct !== one.distinct || many.generated !== one.generated) {
    throw new Error(`${c.name}: ${cores} workers gave different counts (${many.distinct}/${many.generated} vs ${one.distinct}/${one.generated})`);
  }
  console.log(
    [
      c.name,
      one.status,
      fmt(one.distinct),
      fmt(one.generated),
      one.depth,
      one.seconds.toFixed(1),
      fmt(one.distinct / one.seconds),
      fmt(one.generated / one.seconds),
      fmt(one.bytesPerState),
      fmt(one.peakMemoryBytes / 2 ** 20),
      many.seconds.toFixed(1),
      `${(one.seconds / many.seconds).toFixed(2)}×`,
    ].join(' | '),
  );
}
