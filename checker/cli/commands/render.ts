/**
 * `kmc render <trace.itf.json> --format F --out FILE`: draws a saved counterexample. The state graph is
 * the trace alone unless `--neighbourhood K` (other successors K steps off the trace) or `--reachable`
 * (the whole, small, state graph with the trace on it) asks for more; those re-run the spec the trace
 * names, with the parameters it records.
 */
import { writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { KmcCommand } from '../command.ts';
import { ExitCode } from '../../run/exitCodes.ts';
import { SpecError } from '../../engine/expander.ts';
import { prepareCheck } from '../../run/runCheck.ts';
import { DEFAULT_MAX_GRAPH_STATES, neighbourhoodGraph, overlayTrace, reachableGraph } from '../../engine/reachableGraph.ts';
import { UserError, choices } from '../../run/userError.ts';
import { checkOutputFile, makeDirectory } from '../outputPath.ts';
import type { ItfTrace } from '../../../traces/itf/write.ts';
import { FORMAT_DESCRIPTIONS, FORMATS, GRAPH_FORMATS, formatForFile, renderFormat, type Format } from '../../../traces/render/formats.ts';
import { readItf } from '../../../traces/itf/readFile.ts';
import type { StateGraph } from '../../../traces/render/stateGraph.ts';
import { titleOf } from '../../../traces/render/steps.ts';

const LABELS = ['auto', 'full', 'changes'] as const;

export const renderCommand: KmcCommand = {
  command: 'render <trace>',
  describe: 'Draw a saved .itf.json counterexample: text, DOT, SVG, sequence chart, Mermaid, HTML report, GraphML or GEXF',
  builder: (y) =>
    y
      .positional('trace', { type: 'string', describe: 'An .itf.json trace (kmc check --out, kmc simulate, Apalache or Quint)' })
      .option('format', {
        type: 'string',
        describe: `What to draw. ${FORMATS.map((f) => `${f}: ${FORMAT_DESCRIPTIONS[f]}`).join('; ')}. Default: from the --out file name (.html, .dot, .svg, .sequence.svg, .mmd, .graphml, .gexf, .txt), else text`,
      })
      .option('out', { type: 'string', describe: 'File to write (default: standard output)' })
      .option('neighbourhood', { type: 'number', describe: 'Also draw every other successor of the trace states, this many steps off the trace (re-runs the spec)' })
      .option('reachable', { type: 'boolean', default: false, describe: 'Draw the whole reachable state graph with the trace on it (small models only; re-runs the spec)' })
      .option('max-graph-states', { type: 'number', default: DEFAULT_MAX_GRAPH_STATES, describe: 'Refuse to draw a graph with more states than this' })
      .option('spec', { type: 'string', describe: "Spec to re-run for --neighbourhood/--reachable (default: the one the trace names); a bundled name or a module path" })
      .option('params', { type: 'boolean', default: false, describe: "text: name each step with its parameters in full (a message record too) instead of the spec's words for it" })
      .option('labels', { type: 'string', default: 'auto', describe: `State labels in the graph: ${LABELS.join(', ')} (full: every variable, as TLC; changes: what the step changed)` }),
  run: async (argv) => {
    const file = String(argv.trace);
    const out = argv.out === undefined ? undefined : String(argv.out);
    if (out !== undefined) checkOutputFile(out);
    const format = chooseFormat(argv.format, out);
    const labels = String(argv.labels);
    if (!(LABELS as readonly string[]).includes(labels)) throw new UserError(`--labels must be ${choices(LABELS)}; got '${labels}'.`);
    const itf = readTrace(file);
    const graph = await buildGraph(itf, file, format, argv);
    const text = await renderFormat(itf, format, {
      ...(graph ? { graph } : {}),
      labels: labels as (typeof LABELS)[number],
      colour: out === undefined && process.stdout.isTTY === true,
      params: argv.params === true,
    });
    if (out === undefined) {
      process.stdout.write(text);
    } else {
      try {
        makeDirectory(dirname(out), '--out');
        writeFileSync(out, text);
      } catch (e) {
        throw new UserError(`Cannot write ${out}: ${(e as Error).message}. Give a file path in a folder you can write to.`);
      }
      process.stderr.write(`Wrote ${format} to ${out}\n`);
    }
    return ExitCode.Holds;
  },
};

function chooseFormat(raw: unknown, out: string | undefined): Format {
  if (raw !== undefined) {
    const f = String(raw);
    if (!(FORMATS as readonly string[]).includes(f)) {
      throw new UserError(`Unknown format '${f}'. kmc render draws ${choices(FORMATS)}; kmc render --help says what each one is.`);
    }
    return f as Format;
  }
  return (out !== undefined ? formatForFile(out) : undefined) ?? 'text';
}

export function readTrace(file: string): ItfTrace {
  return readItf(file, 'render');
}

async function buildGraph(itf: ItfTrace, file: string, format: Format, argv: Record<string, unknown>): Promise<StateGraph | undefined> {
  const hops = argv.neighbourhood;
  const reachable = argv.reachable === true;
  if (hops === undefined && !reachable) return undefined;
  const asked = reachable ? '--reachable' : '--neighbourhood';
  if (hops !== undefined && reachable) throw new UserError('Give either --neighbourhood K (the trace and its surroundings) or --reachable (the whole state graph), not both.');
  if (!GRAPH_FORMATS.includes(format)) {
    throw new UserError(`${asked} changes only the state graph, which format ${format} does not draw. Use it with --format ${choices(GRAPH_FORMATS)}.`);
  }
  if (hops !== undefined && (!Number.isSafeInteger(hops) || (hops as number) < 0)) {
    throw new UserError(`--neighbourhood takes a whole number of steps off the trace (0 for the trace alone, 1 for its direct alternatives); got '${String(hops)}'.`);
  }
  const maxStates = Number(argv['max-graph-states']);
  if (!Number.isSafeInteger(maxStates) || maxStates < 1) throw new UserError(`--max-graph-states takes a whole number of at least 1; got '${String(argv['max-graph-states'])}'.`);
  const spec = argv.spec !== undefined ? String(argv.spec) : itf['#meta']?.spec;
  if (spec === undefined) throw new UserError(`${file} does not name the spec it came from, so ${asked} cannot re-run it. Give the spec with --spec NAME or --spec path/to/spec.ts.`);
  const params = Object.entries(itf['#meta']?.params ?? {}).map(([k, v]) => `${k}=${String(v)}`);
  let prepared: Awaited<ReturnType<typeof prepareCheck>>;
  try {
    prepared = await prepareCheck({ spec, params });
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    // A trace names its spec, not the file it came from: a user's spec is found only through --spec.
    const hint = argv.spec === undefined ? ` If the trace came from a spec file, give it with --spec ./path/to/${spec}.ts.` : '';
    throw new UserError(`${asked} re-runs the spec ${spec} with the trace's parameters (${params.join(', ') || 'none'}), which failed: ${e.message}${hint}`, e.exitCode);
  }
  try {
    if (reachable) {
      const g = reachableGraph(prepared.model, { spec: prepared.label.spec, title: titleOf(itf) }, { maxStates });
      overlayTrace(g, prepared.model, itf);
      return g;
    }
    return neighbourhoodGraph(prepared.model, itf, hops as number, { maxStates });
  } catch (e) {
    if (e instanceof SpecError) throw new UserError(`The spec ${prepared.label.spec} threw while drawing the graph: ${e.message}`, ExitCode.SpecError);
    throw e;
  }
}
