/**
 * Renders DOT to SVG in-process with Graphviz compiled to WebAssembly (@hpcc-js/wasm-graphviz): no
 * `dot` binary on the PATH, the same layout on every machine.
 */
import { Graphviz } from '@hpcc-js/wasm-graphviz';

let loading: Promise<Graphviz> | undefined;

function graphviz(): Promise<Graphviz> {
  loading ??= Graphviz.load();
  return loading;
}

/** Graphviz could not lay the graph out (a syntax error in the DOT text). */
export class DotError extends Error {}

export async function dotToSvg(dot: string): Promise<string> {
  return layout(dot, 'svg');
}

/** Graphviz's own reading of the DOT text (`-Tjson`): nodes, clusters, edges and their attributes. */
export async function dotToJson(dot: string): Promise<GraphvizJson> {
  return JSON.parse(await layout(dot, 'json')) as GraphvizJson;
}

async function layout(dot: string, format: 'svg' | 'json'): Promise<string> {
  const gv = await graphviz();
  let out: string;
  try {
    out = gv.layout(dot, format, 'dot');
  } catch (e) {
    throw new DotError(`Graphviz could not lay out the graph: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!out) throw new DotError('Graphviz produced no output for the graph');
  return out;
}

export interface GraphvizJson {
  readonly name: string;
  readonly directed: boolean;
  readonly objects?: readonly GraphvizObject[];
  readonly edges?: readonly GraphvizEdge[];
}
export interface GraphvizObject {
  readonly _gvid: number;
  readonly name: string;
  /** Present on clusters: the `_gvid`s of their nodes. */
  readonly nodes?: readonly number[];
  readonly [attribute: string]: unknown;
}
export interface GraphvizEdge {
  readonly _gvid: number;
  readonly tail: number;
  readonly head: number;
  readonly [attribute: string]: unknown;
}
