/**
 * `npm run bench`: throughput and memory of the checker on the bench models, each run in a fresh
 * process of the compiled checker (dist/) with one worker and with every core, so the worker speed-up is
 * measured, not assumed. The same TwoPhase state space runs through its layout and through its
 * Immutable.js form side by side, and a Kafka model runs once more with a memory budget below its
 * frontier, which spills to disk and must end with the same counts.
 * `npm run bench -- --quick` uses smaller sizes; `-- --only NAME` runs one model; `-- --repeat N` runs
 * every measurement N times and prints the run of median time (on a shared machine one run can be off
 * by a fifth; the counts of every repeat must agree). With TLC configured
 * (bench/tlc.ts), TLC's TwoPhase runs beside the bundled one and the ratio is printed.
 * Where nats-server is installed, the search partitioned among owners runs beside one process: owner
 * threads (--workers 2), and `kmc worker` processes through a NATS server on loopback (bytes a state and peak RSS, the driver's alone for worker processes; bytes on the wire per
 * state, the cost per state against one process, and the milliseconds each level waits at its barrier).
 * `KMC_BENCH_BIG=1` adds the cases that take minutes each: TwoPhase rm=10 (tens of millions of states),
 * a Kafka configuration out of reach of the first release (its bytes per state is the whole process's
 * peak RSS over 10^6+ states), and a Kafka run whose frontier outgrows --memory-budget, which spills to
 * disk and must end with the counts of the same run in memory.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { runTlcTwoPhase, tlcFromEnvironment } from './tlc.ts';
import { natsServerPath, startNats, startWorkers, stopProcess } from '../checker/engine/cluster/testCluster.ts';

interface BenchCase {
  readonly name: string;
  readonly args: readonly string[];
  readonly quickArgs?: readonly string[];
  /** Extra options of the one-worker run only (the spill case). */
  readonly oneWorkerOptions?: readonly string[];
  /** Skip the all-cores run (a spec without a layout, which worker threads do not share out; or a run measured for the representation alone). */
  readonly oneWorkerOnly?: boolean;
  /** Skip the one-worker run (a case too big to run twice): the all-cores figures fill the row. */
  readonly allCoresOnly?: boolean;
  /** The run must end with the verdict and counts of this earlier case (a spilling run against its in-memory twin). */
  readonly sameAs?: string;
  /** At full size the run must write some of its frontier to disk (else it proves nothing about spilling). */
  readonly mustSpill?: boolean;
}

// replication-bench with three records (701,429 states): its widest levels outgrow this budget (about 20 MB
// of frontier goes to disk; at 40M nothing does, and below 30M the fingerprint tables alone outgrow it).
const SPILL_KAFKA = ['replication', '--preset', 'replication-bench', '--param', 'values=3'];
const SPILL_BUDGET = '36M';

const CASES: readonly BenchCase[] = [
  // The bundled TwoPhase (a declared layout) and the same spec over Immutable.js, side by side.
  { name: 'twophase rm=8 (layout)', args: ['twophase', '--param', 'rm=8'], quickArgs: ['twophase', '--param', 'rm=7'] },
  { name: 'twophase rm=8 (Immutable.js)', args: ['spec/twophase/twoPhaseImmutable.ts', '--param', 'rm=8'], quickArgs: ['spec/twophase/twoPhaseImmutable.ts', '--param', 'rm=7'], oneWorkerOnly: true },
  // The same state space packed by hand into a number: what the engine does with no spec cost (in one
  // thread: a number is not a state of a layout, which worker threads share out).
  { name: 'twophase-packed rm=8', args: ['bench/twoPhasePacked.ts', '--param', 'rm=8'], quickArgs: ['bench/twoPhasePacked.ts', '--param', 'rm=7'], oneWorkerOnly: true },
  { name: 'kraft-bench', args: ['kraft', '--preset', 'kraft-bench'] },
  // kraft-bench is over in about 1.5 s, and a worker thread spends its first few tenths of a second loading
  // the model and running its code before V8 has optimized it: the same model with two client values
  // (461,593 states) shows what the workers do once that start is a small part of the run.
  { name: 'kraft-bench maxValues=2', args: ['kraft', '--preset', 'kraft-bench', '--param', 'maxValues=2'], quickArgs: ['kraft', '--preset', 'kraft-bench'] },
  // The bundled KRaft (a declared layout) and the same spec over Immutable.js, side by side (in one thread:
  // worker threads share out packed states only).
  { name: 'kraft-bench (Immutable.js)', args: ['spec/kraft/kraftImmutable.ts', '--preset', 'kraft-bench'], oneWorkerOnly: true },
  { name: 'replication-bench', args: ['replication', '--preset', 'replication-bench'] },
  // A spec the way a TLA+ author writes one, over Immutable.js: Paxos Commit, whose state is mostly one
  // growing set of message records (the first 150,000 states of its 1,321,761 with two resource managers).
  { name: 'paxos-commit 150K (Immutable.js)', args: ['bench/paxosCommit.ts', '--max-states', '150000'], quickArgs: ['bench/paxosCommit.ts', '--max-states', '40000'], oneWorkerOnly: true },
  // Under a budget near its size the run may spill; the counts must equal the in-memory run above. TwoPhase's
  // frontier is small beside its fingerprint table, so whether it reaches the disk depends on when the
  // V8 heap is collected: only the Kafka case of KMC_BENCH_BIG, whose frontier outgrows its budget, must spill.
  { name: 'twophase rm=8 under --memory-budget 96M', args: ['twophase', '--param', 'rm=8'], quickArgs: ['twophase', '--param', 'rm=7'], oneWorkerOptions: ['--memory-budget', '96M'], oneWorkerOnly: true, sameAs: 'twophase rm=8 (layout)' },
  // A packed-layout spec: the KIP-631 lifecycle's final design, exhaustive.
  { name: 'lifecycle kip631-final', args: ['lifecycle', '--preset', 'kip631-final'], quickArgs: ['lifecycle', '--preset', 'kip903-broker-epochs'] },
];

/** KMC_BENCH_BIG=1: minutes each, run once (all cores), in this order. */
const BIG_CASES: readonly BenchCase[] = [
  // rm=8 is over in a few seconds, of which each worker thread spends its first few tenths starting and
  // having V8 compile its hot code (about half a second of compiling per thread, which one thread does on
  // the idle core): TwoPhase with nine resource managers shows the speed-up once that is a small part.
  { name: 'twophase rm=9 (layout)', args: ['twophase', '--param', 'rm=9'] },
  { name: 'twophase rm=10 (layout)', args: ['twophase', '--param', 'rm=10'], allCoresOnly: true },
  // Replication under KIP-966 (ELR) with three records and three ISR shrinks: replication-bench made
  // bigger along the two bounds that hold (with rf=4 the bench bounds find ElrMembersHoldCommitted broken).
  { name: 'replication-bench values=3 maxIsrShrinks=3', args: ['replication', '--preset', 'replication-bench', '--param', 'values=3', '--param', 'maxIsrShrinks=3'], allCoresOnly: true },
  // KRaft over 10^6 states: kraft-bench with three client values (1,307,950 states, depth 39), in one
  // thread and with every core. The one-thread run's bytes per state hold the whole process to the 200 B
  // bar (the frontier is stored as differences between consecutive states, frontierCodec.ts).
  { name: 'kraft-bench maxValues=3 (10^6+ states)', args: ['kraft', '--preset', 'kraft-bench', '--param', 'maxValues=3'] },
  // The same Kafka run in one thread in memory, then under a budget its frontier outgrows (in one thread:
  // only the sequential search spills).
  { name: 'replication-bench values=3 in memory', args: SPILL_KAFKA, oneWorkerOnly: true },
  { name: `replication-bench values=3 spilling (--memory-budget ${SPILL_BUDGET})`, args: SPILL_KAFKA, oneWorkerOptions: ['--memory-budget', SPILL_BUDGET], oneWorkerOnly: true, sameAs: 'replication-bench values=3 in memory', mustSpill: true },
];

const compiled = fileURLToPath(new URL('../dist/checker/cli/bin.mjs', import.meta.url));
const bin = existsSync(compiled) ? compiled : fileURLToPath(new URL('../checker/cli/bin.mjs', import.meta.url));
const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : undefined;
const repeat = argv.includes('--repeat') ? Number(argv[argv.indexOf('--repeat') + 1]) : 1;
if (!Number.isInteger(repeat) || repeat < 1) {
  console.error(`npm run bench: --repeat takes a whole number of runs, 1 or more (got ${argv[argv.indexOf('--repeat') + 1] ?? 'nothing'}); each figure is then the median of that many runs.`);
  process.exit(2);
}
const cores = availableParallelism();
const big = process.env.KMC_BENCH_BIG === '1';

interface Figures {
  status: string;
  distinct: number;
  generated: number;
  depth: number;
  seconds: number;
  /** The process's CPU time meanwhile, every thread's (the workers', and V8's compiling and collecting). */
  cpuSeconds: number;
  bytesPerState: number;
  peakMemoryBytes: number;
  spilledBytes?: number;
  ownership?: { levels: number; batches: number; bytesSent: number; expandMs: number; absorbMs: number; barrierMs: number };
}

function run(args: readonly string[], workers: number, extra: readonly string[] = []): Figures {
  return runWith(args, [...extra, '--workers', String(workers)]);
}

/** The run of median time among `repeat` runs of the same check (whose counts must agree). */
function runWith(args: readonly string[], extra: readonly string[]): Figures {
  const runs = Array.from({ length: repeat }, () => {
    const r = spawnSync(process.execPath, [bin, 'check', ...args, ...extra, '--json', '--quiet'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    return figuresOf(args, r.status, r.stdout, r.stderr);
  });
  const first = runs[0]!;
  const differs = runs.find((f) => f.status !== first.status || f.distinct !== first.distinct || f.generated !== first.generated || f.depth !== first.depth);
  if (differs) throw new Error(`kmc check ${[...args, ...extra].join(' ')} gave different counts when repeated: ${first.distinct}/${first.generated}/${first.depth} and ${differs.distinct}/${differs.generated}/${differs.depth}`);
  return median(runs, (f) => f.seconds);
}

/** The element of median `key` (the lower of the middle two for an even count). */
function median<T>(xs: readonly T[], key: (x: T) => number): T {
  return [...xs].sort((a, b) => key(a) - key(b))[(xs.length - 1) >> 1]!;
}

function figuresOf(args: readonly string[], status: number | null, stdout: string, stderr: string): Figures {
  if (status !== 0 && status !== 1 && status !== 4) throw new Error(`kmc check ${args.join(' ')} failed (exit ${status}): ${stderr}`);
  return JSON.parse(stdout) as Figures;
}

/** `n` one-worker runs of the same check, started together, each in its own process. */
async function runAtOnce(args: readonly string[], n: number): Promise<Figures[]> {
  const one = () =>
    new Promise<Figures>((resolve, reject) => {
      const child = spawn(process.execPath, [bin, 'check', ...args, '--workers', '1', '--json', '--quiet']);
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('error', reject);
      child.on('close', (status) => {
        try {
          resolve(figuresOf(args, status, stdout, stderr));
        } catch (e) {
          reject(e);
        }
      });
    });
  return Promise.all(Array.from({ length: n }, one));
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
console.log(`kmc bench — ${cores} cores, Node ${process.version}${quick ? ', quick sizes' : ''}${repeat > 1 ? `, each figure the median of ${repeat} runs` : ', one run each (--repeat N for medians)'}`);
// CPU seconds beside each time: what a worker thread costs beyond its share of the search (its own copy
// of V8's compiled code, its start) is the CPU of N workers against one.
console.log(['model', 'verdict', 'distinct', 'generated', 'depth', 'seconds', 'CPU s', 'distinct/s', 'generated/s', 'bytes/state', 'peak RSS MB', 'spilled MB', `seconds (${cores} workers)`, 'speed-up', `CPU s (${cores} workers)`, 'CPU vs one', `bytes/state (${cores} workers)`, 'vs one'].join(' | '));
/** The one-worker figures of each case run, for the side-by-side ratios after the table. */
const oneWorker = new Map<string, Figures>();
/** The all-cores figures of each case run, so a later comparison reuses them instead of searching again. */
const allCores = new Map<string, Figures>();
for (const c of big ? [...CASES, ...BIG_CASES] : CASES) {
  if (only && !c.name.includes(only)) continue;
  const args = quick && c.quickArgs ? c.quickArgs : c.args;
  const many0 = cores > 1 && !c.oneWorkerOnly ? run(args, cores) : null;
  const one = c.allCoresOnly && many0 !== null ? many0 : run(args, 1, c.oneWorkerOptions);
  const many = many0 ?? one;
  allCores.set(c.name, many);
  oneWorker.set(c.name, one);
  if (many.distinct !== one.distinct || many.generated !== one.generated) {
    throw new Error(`${c.name}: ${cores} workers gave different counts (${many.distinct}/${many.generated} vs ${one.distinct}/${one.generated})`);
  }
  const twin = c.sameAs !== undefined ? allCores.get(c.sameAs) : undefined;
  if (twin !== undefined && (twin.status !== one.status || twin.distinct !== one.distinct || twin.generated !== one.generated || twin.depth !== one.depth)) {
    throw new Error(`${c.name}: ended ${one.status} ${one.distinct}/${one.generated}/${one.depth}, not as ${c.sameAs} (${twin.status} ${twin.distinct}/${twin.generated}/${twin.depth})`);
  }
  if (c.mustSpill && !quick && !((one.spilledBytes ?? 0) > 0)) throw new Error(`${c.name}: nothing went to disk; lower its budget`);
  console.log(
    [
      c.allCoresOnly && many0 !== null ? `${c.name}, ${cores} workers` : c.name,
      one.status,
      fmt(one.distinct),
      fmt(one.generated),
      one.depth,
      one.seconds.toFixed(1),
      one.cpuSeconds.toFixed(1),
      fmt(one.distinct / one.seconds),
      fmt(one.generated / one.seconds),
      fmt(one.bytesPerState),
      fmt(one.peakMemoryBytes / 2 ** 20),
      fmt((one.spilledBytes ?? 0) / 2 ** 20),
      many === one ? '—' : many.seconds.toFixed(1),
      many === one ? '—' : `${(one.seconds / many.seconds).toFixed(2)}×`,
      many === one ? '—' : many.cpuSeconds.toFixed(1),
      many === one ? '—' : `${(many.cpuSeconds / one.cpuSeconds).toFixed(2)}×`,
      many === one ? '—' : fmt(many.bytesPerState),
      many === one || one.bytesPerState === 0 ? '—' : `${(many.bytesPerState / one.bytesPerState).toFixed(2)}×`,
    ].join(' | '),
  );
}

// What this machine gives N threads: N one-worker runs of the same model at once. Cores that share a
// physical core or its caches and memory (a virtual machine's often do) each run slower when all are busy,
// so N independent searches do less than N times the work of one. Their summed throughput is the most N
// workers could reach here; the workers' speed-up is printed as a share of it.
if (cores > 1) {
  console.log('');
  console.log(['model', `${cores} one-worker runs at once: throughput vs one alone (ceiling)`, `${cores} workers' speed-up`, 'share of the ceiling'].join(' | '));
  for (const c of big ? [...CASES, ...BIG_CASES] : CASES) {
    const one = oneWorker.get(c.name);
    const many = allCores.get(c.name);
    if (one === undefined || many === undefined || many === one || c.allCoresOnly) continue;
    const tries: Figures[][] = [];
    for (let k = 0; k < repeat; k++) tries.push(await runAtOnce(quick && c.quickArgs ? c.quickArgs : c.args, cores));
    const ceilingOf = (together: readonly Figures[]) => together.reduce((sum, f) => sum + one.seconds / f.seconds, 0);
    const together = median(tries, ceilingOf);
    const ceiling = ceilingOf(together);
    const speedUp = one.seconds / many.seconds;
    console.log([c.name, `${ceiling.toFixed(2)}× (${together.map((f) => f.seconds.toFixed(1)).join(' s, ')} s each)`, `${speedUp.toFixed(2)}×`, `${Math.round((100 * speedUp) / ceiling)} %`].join(' | '));
  }
}

// The same state space through different representations, in this run, one worker each.
const sideBySide: readonly [string, string, string][] = [
  ['TwoPhase: Immutable.js against its layout', 'twophase rm=8 (Immutable.js)', 'twophase rm=8 (layout)'],
  ['TwoPhase: its layout against the model packed by hand', 'twophase rm=8 (layout)', 'twophase-packed rm=8'],
  ['KRaft: Immutable.js against its layout', 'kraft-bench (Immutable.js)', 'kraft-bench'],
];
for (const [what, slower, faster] of sideBySide) {
  const a = oneWorker.get(slower);
  const b = oneWorker.get(faster);
  if (a && b) console.log(`${what}: ${a.seconds.toFixed(1)} s against ${b.seconds.toFixed(1)} s, ${(a.seconds / b.seconds).toFixed(2)}× the time`);
}

// TLC beside the bundled TwoPhase, same size, same machine, same run.
const tlc = tlcFromEnvironment();
if (tlc !== null && (!only || 'twophase rm=8 (layout)'.includes(only))) {
  const rm = quick ? 7 : 8;
  const theirs = runTlcTwoPhase(tlc, rm, cores);
  const ours = allCores.get('twophase rm=8 (layout)') ?? run(['twophase', '--param', `rm=${rm}`], cores);
  if (theirs.distinct !== ours.distinct || theirs.depth !== ours.depth) {
    throw new Error(`TLC and kmc disagree on TwoPhase rm=${rm}: ${theirs.distinct}/${theirs.depth} against ${ours.distinct}/${ours.depth}`);
  }
  console.log(`TLC TwoPhase rm=${rm}, ${cores} workers: ${fmt(theirs.distinct)} distinct, depth ${theirs.depth}, ${theirs.seconds.toFixed(1)} s; kmc ${ours.seconds.toFixed(1)} s: kmc ${(theirs.seconds / ours.seconds).toFixed(2)}× TLC's speed`);
} else if (tlc === null) {
  console.log('TLC comparison skipped: set KMC_BENCH_TLC and KMC_BENCH_TLC_TWOPHASE (bench/tlc.ts)');
}

// The search partitioned among owners: threads (--workers 2 puts one owner on each; --owners 2 spreads
// them over the cores), and worker processes through NATS on loopback.
// On one machine the workers share its cores with the driver and the server, so what is measured is the
// cost of partitioning and of the network path, not a speed-up.
const natsServer = natsServerPath();
const CLUSTER_CASES: readonly BenchCase[] = [
  { name: 'twophase rm=8 (layout)', args: ['twophase', '--param', 'rm=8'], quickArgs: ['twophase', '--param', 'rm=7'] },
  { name: 'kraft-bench', args: ['kraft', '--preset', 'kraft-bench'] },
  { name: 'replication-bench', args: ['replication', '--preset', 'replication-bench'] },
];
if (natsServer === null) console.log('Cluster figures skipped: nats-server is not installed (apt-get install nats-server)');
else {
  const servers = await startNats(1);
  const url = servers.urls[0]!;
  const workers = startWorkers(bin, url, 2);
  try {
    console.log('');
    console.log(['model', 'how', 'seconds', 'cost per state vs one process', 'bytes/state', 'peak RSS MB', 'wire bytes/state', 'batches', 'expand ms/level', 'absorb ms/level', 'barrier ms/level'].join(' | '));
    for (const c of CLUSTER_CASES) {
      if (only && !c.name.includes(only)) continue;
      const args = quick && c.quickArgs ? c.quickArgs : c.args;
      const one = run(args, 1);
      const ways: [string, string[]][] = [
        ['one process, 1 worker', []],
        ['2 worker threads', ['--workers', '2']],
        ['1 worker process (NATS)', ['--owners', '1', '--cluster', url]],
        ['2 worker processes (NATS)', ['--owners', '2', '--cluster', url]],
      ];
      for (const [how, extra] of ways) {
        const f = extra.length === 0 ? one : runWith(args, extra);
        if (f.distinct !== one.distinct || f.generated !== one.generated || f.depth !== one.depth) {
          throw new Error(`${c.name}, ${how}: ${f.distinct}/${f.generated}/${f.depth}, not one process's ${one.distinct}/${one.generated}/${one.depth}`);
        }
        const o = f.ownership;
        console.log(
          [
            c.name,
            how,
            f.seconds.toFixed(1),
            `${(f.seconds / one.seconds).toFixed(2)}×`,
            fmt(f.bytesPerState),
            fmt(f.peakMemoryBytes / 2 ** 20),
            o ? fmt(o.bytesSent / f.distinct) : '—',
            o ? fmt(o.batches) : '—',
            o ? o.expandMs.toFixed(1) : '—',
            o ? o.absorbMs.toFixed(1) : '—',
            o ? o.barrierMs.toFixed(1) : '—',
          ].join(' | '),
        );
      }
    }
  } finally {
    await Promise.all(workers.map((w) => stopProcess(w)));
    await servers.stop();
  }
}
