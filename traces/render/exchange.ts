/**
 * The state graph for graph tools (Gephi, yEd, Cytoscape, NetworkX): GEXF through graphology-gexf's
 * writer, and GraphML through a small writer here (graphology-graphml only parses; its parser reads our
 * output back in the tests). Both carry the same flat attributes: every value a string, number or boolean,
 * the full state as TLA+ text, and each action's colour from the DOT legend.
 */
import { MultiDirectedGraph } from 'graphology';
import { write as writeGexfText } from 'graphology-gexf';
import { formatValue } from './value.ts';
import { styleOf, VIOLATION_COLOUR } from './palette.ts';
import type { StateGraph } from './stateGraph.ts';

type Scalar = string | number | boolean;
type Flat = Record<string, Scalar>;

/** The attributes every exchange format writes, in a fixed order so files diff cleanly. */
export function flatGraph(g: StateGraph): MultiDirectedGraph<Flat, Flat, Flat> {
  const info = g.getAttributes();
  const out = new MultiDirectedGraph<Flat, Flat, Flat>({ allowSelfLoops: true });
  out.replaceAttributes({
    creator: 'kmc',
    description: [info.title, info.verdict ? `${info.verdict.property}: ${info.verdict.description}` : ''].filter(Boolean).join(' | '),
    kind: info.kind,
    title: info.title,
    ...(info.verdict ? { violated: info.verdict.property } : {}),
    ...(info.hops !== undefined ? { hops: info.hops } : {}),
  });
  g.forEachNode((key, a) => {
    out.addNode(key, {
      label: a.steps.length ? `step ${a.steps.join(', ')}` : a.label,
      initial: a.initial,
      onTrace: a.onTrace,
      steps: a.steps.join(','),
      depth: a.depth,
      violates: a.violates ?? '',
      frontier: a.frontier ?? false,
      parent: a.parent ?? '',
      state: Object.entries(a.vars)
        .map(([k, v]) => `/\\ ${k} = ${formatValue(v)}`)
        .join('\n'),
      colour: a.violates !== undefined ? VIOLATION_COLOUR : a.onTrace ? '#1d2430' : '#9a9a9a',
    });
  });
  g.forEachEdge((key, e, source, target) => {
    out.addDirectedEdgeWithKey(key, source, target, {
      label: e.label,
      action: e.action,
      params: e.params,
      onTrace: e.onTrace,
      step: e.step ?? -1,
      colour: styleOf(info.actions, e.action).colour,
    });
  });
  return out;
}

export function toGexf(g: StateGraph): string {
  return writeGexfText(flatGraph(g), {
    version: '1.3',
    formatNode: (_key, a) => {
      const { label, colour, ...rest } = a;
      return { label: String(label), attributes: rest, viz: { color: String(colour), size: a.onTrace ? 12 : 6 } };
    },
    formatEdge: (_key, a) => {
      const { label, colour, ...rest } = a;
      return { label: String(label), attributes: rest, viz: { color: String(colour), thickness: a.onTrace ? 3 : 1 } };
    },
  });
}

export function toGraphml(g: StateGraph): string {
  const flat = flatGraph(g);
  const keys: string[] = [];
  const keyIds = new Map<string, string>();
  const declare = (domain: 'graph' | 'node' | 'edge', attrs: Flat) => {
    for (const [name, v] of Object.entries(attrs)) {
      const k = `${domain}:${name}`;
      if (keyIds.has(k)) continue;
      const id = `${domain[0]}_${name}`;
      keyIds.set(k, id);
      const type = typeof v === 'boolean' ? 'boolean' : typeof v === 'number' ? (Number.isInteger(v) ? 'int' : 'double') : 'string';
      keys.push(`  <key id="${xml(id)}" for="${domain}" attr.name="${xml(name)}" attr.type="${type}"/>`);
    }
  };
  declare('graph', flat.getAttributes());
  flat.forEachNode((_, a) => declare('node', a));
  flat.forEachEdge((_, a) => declare('edge', a));
  const data = (domain: string, attrs: Flat, indent: string) =>
    Object.entries(attrs).map(([name, v]) => `${indent}<data key="${xml(keyIds.get(`${domain}:${name}`)!)}">${xml(String(v))}</data>`);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">',
    ...keys,
    '  <graph id="kmc" edgedefault="directed">',
    ...data('graph', flat.getAttributes(), '    '),
  ];
  flat.forEachNode((key, a) => lines.push(`    <node id="${xml(key)}">`, ...data('node', a, '      '), '    </node>'));
  flat.forEachEdge((key, a, source, target) =>
    lines.push(`    <edge id="${xml(key)}" source="${xml(source)}" target="${xml(target)}">`, ...data('edge', a, '      '), '    </edge>'),
  );
  lines.push('  </graph>', '</graphml>');
  return `${lines.join('\n')}\n`;
}

/** XML text: markup characters escaped, characters XML 1.0 forbids dropped. */
function xml(s: string): string {
  return s
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}
