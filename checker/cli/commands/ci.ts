/**
 * `kmc ci [suite]`: the gate for changes to a protocol design. Runs every check of a suite, compares
 * verdicts with the suite and sizes with the committed baseline, and writes the reports CI systems read.
 * Exit codes: 0 all matched, 1 a verdict differs (or drift without --allow-drift), 2 malformed suite or
 * usage, 3 a spec threw, 4 a budget ran out, 5 the --cluster could not run the checks.
 */
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, relative, resolve } from 'node:path';
import chalk from 'chalk';
import type { KmcCommand } from '../command.ts';
import { ExitCode } from '../../run/exitCodes.ts';
import { loadSpec } from '../../run/loadSpec.ts';
import { BUNDLED_NAMES, BUNDLED_SPECS } from '../../run/registry.ts';
import { UserError } from '../../run/userError.ts';
import { defaultSuiteYaml, type SpecSource } from '../../ci/defaultSuite.ts';
import { githubAnnotations } from '../../ci/githubAnnotations.ts';
import { toJUnit } from '../../ci/junit.ts';
import { toMarkdown } from '../../ci/markdown.ts';
import { DEFAULT_MUTATION_BUDGET } from '../../ci/mutationTest.ts';
import { OUTCOME_LABEL, seconds } from '../../ci/format.ts';
import { ciExitCode, type CiResult } from '../../ci/gate.ts';
import { mergeRuns } from '../../ci/mergeRuns.ts';
import { RECORD_FILE, readRunRecord, writeRunRecord } from '../../ci/runRecord.ts';
import { runCi, writeCounterexamples } from '../../ci/runCi.ts';
import { summaryText } from '../../ci/summaryText.ts';
import { shownPath } from '../../ci/sourceFile.ts';
import { natsAddress, positiveInt, positiveNumber } from './commonOptions.ts';
import { interruptFlag } from './interrupt.ts';

/** Where `kmc ci` looks for a suite when none is named. */
export const SUITE_CANDIDATES = ['kmc.suite.yaml', 'kmc.suite.yml', 'kmc.suite.json', 'ci/kmc.suite.yaml'];

export const ciCommand: KmcCommand = {
  command: 'ci [suite]',
  describe: 'Run a suite of checks against their expected verdicts and baseline (exit 0 all matched, 1 verdict differs or drift, 2 bad suite, 3 spec threw, 4 budget ran out, 5 cluster failed)',
  builder: (y) =>
    y
      .positional('suite', { type: 'string', describe: `The suite file (YAML or JSON); default: the first of ${SUITE_CANDIDATES.join(', ')}` })
      .option('update-baseline', { type: 'boolean', default: false, describe: 'Record distinct states, depth and counterexample length of each passing check in the baseline file' })
      .option('baseline', { type: 'string', describe: 'The baseline file (default: as the suite says, or <suite>.baseline.json beside it)' })
      .option('tolerance', { type: 'number', describe: 'Relative change of a baseline number reported as drift, e.g. 0.1 for 10% (overrides the suite)' })
      .option('allow-drift', { type: 'boolean', default: false, describe: 'Report drift from the baseline without failing' })
      .option('junit', { type: 'string', describe: 'Write a JUnit XML report to this file' })
      .option('markdown', { type: 'string', describe: 'Write a Markdown summary to this file (also appended to $GITHUB_STEP_SUMMARY when set)' })
      .option('out', { type: 'string', describe: 'Folder for the counterexamples (.itf.json, .txt) of failing checks' })
      .option('jobs', { type: 'number', describe: `Checks run at once on this machine (default: its ${availableParallelism()} cores; results are the same for every value; not with --cluster, where each kmc worker runs one check at a time)` })
      .option('cluster', {
        type: 'string',
        describe: 'A NATS server with JetStream (nats://host:4222): the checks (and mutants) go to kmc worker processes through a work queue; the workers need your specs at the same paths',
      })
      .option('cluster-wait', { type: 'string', default: '30', describe: 'Seconds to wait for the first worker of a --cluster run' })
      .option('shard', { type: 'string', describe: `Run slice I of N (I/N, e.g. 2/4): checks I, I+N, I+2N, … of the suite, for a CI matrix; with --out, the slice's result is written there for --merge` })
      .option('merge', { type: 'string', array: true, describe: `Combine the slices of a sharded run (their --out folders, each holding ${RECORD_FILE}) into one report and exit code, as if the suite had run at once` })
      .option('only', { type: 'string', array: true, describe: 'Run only the checks with these names (* matches any text; repeatable)' })
      .option('mutate', { type: 'boolean', default: false, describe: 'Mutation self-test: re-check each passing check with one action disabled or one guard dropped at a time' })
      .option('mutant-states', { type: 'number', default: DEFAULT_MUTATION_BUDGET.mutantStates, describe: 'Distinct-state budget of each mutant' })
      .option('mutant-seconds', { type: 'number', default: DEFAULT_MUTATION_BUDGET.mutantSeconds, describe: 'Time budget of each mutant, in seconds' })
      .option('mutate-seconds', { type: 'number', default: DEFAULT_MUTATION_BUDGET.totalSeconds, describe: 'Time budget of the whole mutation self-test, in seconds' })
      .option('init', { type: 'boolean', default: false, describe: 'Write a suite with one check per preset of the bundled specs (or of --spec) to the suite path, then exit' })
      .option('spec', { type: 'string', array: true, describe: 'With --init: the specs to cover (bundled names or paths; repeatable)' })
      .option('quiet', { type: 'boolean', default: false, describe: 'Print only the summary' }),
  run: async (argv) => {
    if (argv.init) return init(argv);
    if (argv.merge !== undefined) return merge(argv);
    const suitePath = argv.suite !== undefined ? String(argv.suite) : findSuite();
    const quiet = Boolean(argv.quiet);
    const tolerance = argv.tolerance === undefined ? undefined : Number(argv.tolerance);
    if (tolerance !== undefined && !(Number.isFinite(tolerance) && tolerance >= 0)) {
      throw new UserError(`--tolerance takes a fraction of at least 0 (0.1 = 10%); got '${String(argv.tolerance)}'.`);
    }
    if (argv.jobs !== undefined && argv.cluster !== undefined) {
      throw new UserError(`--jobs sets how many checks run at once on this machine; with --cluster the checks run on the kmc worker processes, one at a time each, so start as many workers as checks should run at once. Drop --jobs or --cluster.`);
    }
    const result = await runCi({
      suitePath,
      lanes: argv.jobs === undefined ? availableParallelism() : positiveInt('jobs', argv.jobs)!,
      ...(argv.cluster !== undefined
        ? { cluster: { url: natsAddress('--cluster', argv.cluster), waitSeconds: positiveNumber('cluster-wait', argv['cluster-wait']) ?? 30 } }
        : {}),
      ...(argv.only ? { only: (argv.only as unknown[]).map(String) } : {}),
      ...(argv.shard !== undefined ? { shard: parseShard(String(argv.shard)) } : {}),
      ...(argv.baseline !== undefined ? { baselinePath: String(argv.baseline) } : {}),
      updateBaseline: Boolean(argv['update-baseline']),
      ...(tolerance !== undefined ? { tolerance } : {}),
      allowDrift: Boolean(argv['allow-drift']),
      ...(argv.out !== undefined ? { outDir: String(argv.out) } : {}),
      ...(argv.mutate
        ? {
            mutate: {
              mutantStates: positiveInt('mutant-states', argv['mutant-states'])!,
              mutantSeconds: positiveNumber('mutant-seconds', argv['mutant-seconds'])!,
              totalSeconds: positiveNumber('mutate-seconds', argv['mutate-seconds'])!,
            },
          }
        : {}),
      shouldStop: interruptFlag(),
      ...(quiet
        ? {}
        : {
            onOutcome: (o) => process.stderr.write(chalk.dim(`  ${OUTCOME_LABEL[o.kind].padEnd(8)} ${o.check.name} (${o.report ? seconds(o.report.seconds) : o.got})\n`)),
            onMutationProgress: (done, total) => {
              if (done === total || done % 10 === 0) process.stderr.write(chalk.dim(`  mutants checked: ${done} of ${total}\n`));
            },
          }),
    });
    if (argv.out !== undefined) writeRunRecord(result, String(argv.out));
    return report(result, argv);
  },
};

/** Prints the summary and writes the report files a CI system reads; returns the run's exit code. */
function report(result: CiResult, argv: Record<string, unknown>): ExitCode {
  process.stdout.write(`${summaryText(result)}\n`);
  for (const d of result.diffs ?? []) process.stdout.write(`${d.pass ? 'ok    ' : 'DIFFERS'} ${d.diff.name}: ${d.message}\n`);
  const markdown = toMarkdown(result);
  if (argv.junit !== undefined) writeReport(String(argv.junit), toJUnit(result));
  if (argv.markdown !== undefined) writeReport(String(argv.markdown), markdown);
  if (process.env.GITHUB_STEP_SUMMARY) appendFileSync(process.env.GITHUB_STEP_SUMMARY, `${markdown}\n`);
  if (process.env.GITHUB_ACTIONS === 'true') for (const line of githubAnnotations(result)) process.stdout.write(`${line}\n`);
  return result.exitCode;
}

/** `kmc ci --merge DIR…`: the slices' results as one run, reported as one run is. */
function merge(argv: Record<string, unknown>): ExitCode {
  const runOnly = ['suite', 'shard', 'only', 'update-baseline', 'baseline', 'tolerance', 'mutate', 'spec', 'cluster'].filter((k) => argv[k] !== undefined && argv[k] !== false);
  if (runOnly.length > 0) {
    throw new UserError(`--merge combines finished slices and runs nothing; it does not take ${runOnly.map((k) => (k === 'suite' ? 'a suite' : `--${k}`)).join(', ')} (give those to each kmc ci --shard I/N run).`);
  }
  const dirs = (argv.merge as unknown[]).map(String);
  const merged = mergeRuns(dirs.map((d) => ({ from: d, result: readRunRecord(d) })));
  const result = argv['allow-drift'] && !merged.driftAllowed ? { ...merged, driftAllowed: true, exitCode: ciExitCode(merged.run.outcomes, merged.diffs ?? [], merged.drift, true) } : merged;
  if (argv.out !== undefined) {
    const files = writeCounterexamples(result.run.outcomes, resolve(String(argv.out)));
    const withFiles = { ...result, files };
    writeRunRecord(withFiles, String(argv.out));
    return report(withFiles, argv);
  }
  return report(result, argv);
}

function findSuite(): string {
  const found = SUITE_CANDIDATES.find((p) => existsSync(p));
  if (!found) {
    throw new UserError(`No suite file given and none found (looked for ${SUITE_CANDIDATES.join(', ')}). Name one (kmc ci path/to/suite.yaml), or create one with kmc ci --init.`);
  }
  return found;
}

function writeReport(path: string, text: string): void {
  mkdirSync(dirname(resolve(path)), { recursive: true });
  writeFileSync(path, text);
}

async function init(argv: Record<string, unknown>): Promise<ExitCode> {
  const target = resolve(argv.suite !== undefined ? String(argv.suite) : SUITE_CANDIDATES[0]!);
  if (existsSync(target)) throw new UserError(`${shownPath(target)} already exists; remove it first or name another file (kmc ci --init other.suite.yaml).`);
  const requested = argv.spec ? (argv.spec as unknown[]).map(String) : BUNDLED_NAMES;
  const sources: SpecSource[] = [];
  for (const name of requested) {
    try {
      const loaded = await loadSpec(name);
      // A path is written relative to the suite file, where the suite will look for it.
      const ref = BUNDLED_SPECS[name] !== undefined ? name : `./${relative(dirname(target), resolve(name))}`;
      sources.push({ ref, definition: loaded.definition });
    } catch (e) {
      if (argv.spec) throw e;
      process.stderr.write(chalk.yellow(`Left out ${name}: ${(e as Error).message}\n`));
    }
  }
  writeReport(target, defaultSuiteYaml(sources));
  const count = sources.reduce((n, s) => n + s.definition.presets.length, 0);
  process.stdout.write(`Wrote ${shownPath(target)}: ${count} checks (one per preset of ${sources.map((s) => s.ref).join(', ')}). Tune the budgets, then record a baseline with kmc ci ${shownPath(target)} --update-baseline.\n`);
  return ExitCode.Holds;
}

/** `--shard I/N` with 1 ≤ I ≤ N. */
export function parseShard(text: string): { index: number; count: number } {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const [index, count] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
  if (!m || count < 1 || index < 1 || index > count) throw new UserError(`--shard takes I/N with 1 ≤ I ≤ N (slice I of N), e.g. 1/4; got '${text}'.`);
  return { index, count };
}
