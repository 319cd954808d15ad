/**
 * Writes a counterexample in every format at once, for `kmc check --out DIR`: the ITF trace (for
 * `kmc replay`), its text, DOT, SVG, the sequence chart (SVG and Mermaid), the HTML report, GraphML and
 * GEXF. Files are named `<spec>[-<preset>]-<property>.<ext>` so several counterexamples share a folder;
 * a counterexample of another run there (other parameters under the same preset, say) is never replaced:
 * this one gets the next free name, `…-2`, `…-3`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ItfTrace } from '../itf/write.ts';
import { toDot } from './dot.ts';
import { FORMAT_EXTENSIONS, FORMATS, renderFormat } from './formats.ts';
import { renderHtml } from './html.ts';
import { traceGraph, type StateGraph } from './stateGraph.ts';
import { dotToSvg } from './svg.ts';

export interface WriteAllOptions {
  /** The state graph to draw (default: the trace alone; pass a neighbourhood to show the branches). */
  readonly graph?: StateGraph;
  /** File name without extension (default `<spec>[-<preset>]-<property>`). */
  readonly base?: string;
}

/** Returns the paths written, the ITF trace first. */
export async function writeAllFormats(itf: ItfTrace, dir: string, options: WriteAllOptions = {}): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const base = options.base ?? freeBaseName(dir, baseName(itf), itf);
  const graph = options.graph ?? traceGraph(itf);
  const written: string[] = [];
  const put = (ext: string, text: string) => {
    const path = join(dir, `${base}${ext}`);
    writeFileSync(path, text);
    written.push(path);
  };
  put('.itf.json', `${JSON.stringify(itf, null, 2)}\n`);
  const graphSvg = await dotToSvg(toDot(graph));
  for (const format of FORMATS) {
    if (format === 'svg') put(FORMAT_EXTENSIONS.svg, graphSvg);
    else if (format === 'html') put(FORMAT_EXTENSIONS.html, await renderHtml(itf, { graph, graphSvg }));
    else put(FORMAT_EXTENSIONS[format], await renderFormat(itf, format, { graph }));
  }
  return written;
}

/** `twophase-rm3-commit-early-TCConsistent`: spec, preset and broken property, safe as a file name. */
export function baseName(itf: ItfTrace): string {
  const meta = itf['#meta'];
  const parts = [meta?.spec ?? 'trace', meta?.preset, meta?.verdict?.property].filter((p): p is string => Boolean(p));
  return parts.join('-').replace(/[^A-Za-z0-9._-]+/g, '_');
}

/** `base`, or `base-2`, `base-3`, … : the first name whose trace is absent or is of the same run as `itf`. */
function freeBaseName(dir: string, base: string, itf: ItfTrace): string {
  const run = (t: ItfTrace) => JSON.stringify([t['#meta']?.spec, t['#meta']?.preset, t['#meta']?.params, t['#meta']?.verdict?.property]);
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base}-${n}`;
    const path = join(dir, `${name}.itf.json`);
    if (!existsSync(path)) return name;
    try {
      if (run(JSON.parse(readFileSync(path, 'utf8')) as ItfTrace) === run(itf)) return name;
    } catch {
      // Not a trace kmc can read: keep it, take another name.
    }
  }
}
