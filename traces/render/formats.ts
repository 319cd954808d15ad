/** Every picture of a trace kmc can write, by the name `kmc render --format` knows it by. */
import type { ItfTrace } from '../itf/write.ts';
import { renderText } from '../text.ts';
import { toDot, type DotOptions } from './dot.ts';
import { toGexf, toGraphml } from './exchange.ts';
import { renderHtml } from './html.ts';
import { renderMermaid } from './mermaid.ts';
import { renderSequenceSvg } from './sequence.ts';
import { traceGraph, type StateGraph } from './stateGraph.ts';
import { withKmcMetadata } from './steps.ts';
import { dotToSvg } from './svg.ts';

export const FORMATS = ['text', 'dot', 'svg', 'sequence', 'mermaid', 'html', 'graphml', 'gexf'] as const;
export type Format = (typeof FORMATS)[number];

/** What each format is, for `--help` and error messages. */
export const FORMAT_DESCRIPTIONS: Readonly<Record<Format, string>> = {
  text: 'the steps and what changed, as kmc check prints them',
  dot: "Graphviz DOT of the state graph, in TLC's -dump dot style",
  svg: 'the state graph drawn as SVG',
  sequence: 'the message-sequence chart as SVG',
  mermaid: 'the message-sequence chart as Mermaid text, for docs and PRs',
  html: 'one self-contained page: sequence chart, state graph, step-through table',
  graphml: 'the state graph as GraphML, for yEd, Cytoscape or NetworkX',
  gexf: 'the state graph as GEXF, for Gephi',
};

/** File name endings, most specific first (`.sequence.svg` before `.svg`). */
export const FORMAT_EXTENSIONS: Readonly<Record<Format, string>> = {
  text: '.txt',
  dot: '.dot',
  svg: '.svg',
  sequence: '.sequence.svg',
  mermaid: '.mmd',
  html: '.html',
  graphml: '.graphml',
  gexf: '.gexf',
};

const EXTRA_EXTENSIONS: readonly [string, Format][] = [
  ['.gv', 'dot'],
  ['.htm', 'html'],
  ['.mermaid', 'mermaid'],
];

/** The format a file name asks for by its ending, if any. */
export function formatForFile(path: string): Format | undefined {
  const lower = path.toLowerCase();
  const byLength = [...FORMATS].sort((a, b) => FORMAT_EXTENSIONS[b].length - FORMAT_EXTENSIONS[a].length);
  return byLength.find((f) => lower.endsWith(FORMAT_EXTENSIONS[f])) ?? EXTRA_EXTENSIONS.find(([ext]) => lower.endsWith(ext))?.[1];
}

/** Formats that draw the state graph (and so can show a neighbourhood or the reachable graph). */
export const GRAPH_FORMATS: readonly Format[] = ['dot', 'svg', 'html', 'graphml', 'gexf'];

export interface RenderOptions {
  /** The state graph to draw (default: the trace alone). */
  readonly graph?: StateGraph;
  readonly labels?: DotOptions['labels'];
  /** Keep terminal colours in `text` (default: plain). */
  readonly colour?: boolean;
  /** In `text`, name each step with every parameter in full instead of the spec's words for a message. */
  readonly params?: boolean;
}

export async function renderFormat(itf: ItfTrace, format: Format, options: RenderOptions = {}): Promise<string> {
  const graph = () => options.graph ?? traceGraph(itf);
  const dotOptions = options.labels ? { labels: options.labels } : {};
  switch (format) {
    case 'text': {
      const text = `${renderText(withKmcMetadata(itf), { params: options.params === true })}\n`;
      return options.colour ? text : stripAnsi(text);
    }
    case 'dot':
      return toDot(graph(), dotOptions);
    case 'svg':
      return dotToSvg(toDot(graph(), dotOptions));
    case 'sequence': {
      const g = options.graph;
      return renderSequenceSvg(itf, g ? { actions: g.getAttributes().actions } : {});
    }
    case 'mermaid':
      return renderMermaid(itf);
    case 'html':
      return renderHtml(itf, { graph: graph(), ...dotOptions });
    case 'graphml':
      return toGraphml(graph());
    case 'gexf':
      return toGexf(graph());
  }
}

export function stripAnsi(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\x1b\[[0-9;]*m/g, '');
}
