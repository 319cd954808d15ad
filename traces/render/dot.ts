/**
 * Graphviz DOT for a state graph, in the style of TLC's `-dump dot actionlabels,colorize`: one node per
 * state labelled `/\ var = value`, edges coloured and labelled by action, a "Next State Actions" legend
 * cluster, initial states filled. Added for counterexamples: trace states and transitions drawn bold,
 * violating states red with a double border, and SVG ids/classes (`step-3`) the HTML report highlights.
 */
import { formatValue, truncate } from './value.ts';
import { diffFields, flattenState } from './fields.ts';
import { INITIAL_FILL, VIOLATION_COLOUR, VIOLATION_FILL, styleOf } from './palette.ts';
import type { StateGraph, StateNode } from './stateGraph.ts';
import { verdictSentence } from './steps.ts';

export interface DotOptions {
  /**
   * `full`: every variable, as TLC prints a state. `changes`: only the fields that differ from the state it
   * was reached from (readable for Kafka-sized states and for many states). `auto` (default): `full` for
   * a graph of a few small states, `changes` otherwise.
   */
  readonly labels?: 'full' | 'changes' | 'auto';
}

const MAX_LINE = 90;
const AUTO_FULL_CHARS = 600;
const AUTO_FULL_STATES = 16;
const INITIAL_FIELDS_SHOWN = 12;

export function toDot(g: StateGraph, options: DotOptions = {}): string {
  const info = g.getAttributes();
  const mode = options.labels === 'full' || options.labels === 'changes' ? options.labels : autoMode(g);
  const out: string[] = [];
  const lastStep = Math.max(0, ...g.mapNodes((_, a) => Math.max(-1, ...a.steps)));
  const title = [info.title, info.verdict ? verdictSentence(info.verdict, lastStep) : '', kindNote(g)].filter(Boolean).join('\n');
  out.push(`digraph ${q('kmc')} {`);
  out.push(`  graph [label=${q(title)}, labelloc=t, labeljust=l, fontname="Helvetica", fontsize=12, nodesep=0.35, ranksep=0.45];`);
  out.push('  node [shape=box, style="rounded", fontname="Courier", fontsize=10, margin="0.12,0.06"];');
  out.push('  edge [fontname="Helvetica", fontsize=9, arrowsize=0.7];');
  out.push('  subgraph cluster_graph {');
  out.push('    color="white"; label="";');
  g.forEachNode((key, a) => out.push(`    ${q(key)} [${attrs(nodeAttributes(g, key, a, mode))}];`));
  g.forEachEdge((key, e, source, target) => {
    const style = styleOf(info.actions, e.action);
    const a: Record<string, string | number | Html> = {
      id: `edge-${key}`,
      class: ['transition', e.onTrace ? 'trace' : '', e.step !== undefined ? `step-${e.step}` : ''].filter(Boolean).join(' '),
      label: edgeLabel(e.label, e.action),
      tooltip: e.label,
      color: style.colour,
      fontcolor: style.colour,
      penwidth: e.onTrace ? 2.4 : 1,
    };
    if (style.dashed) a.style = 'dashed';
    if (e.onTrace && info.kind !== 'trace') a.weight = 8;
    out.push(`    ${q(source)} -> ${q(target)} [${attrs(a)}];`);
  });
  out.push('  }');
  out.push(...legend(g));
  out.push('}');
  return `${out.join('\n')}\n`;
}

/**
 * A transition's label in short lines: the action, then the spec's words for it, as an HTML-like label
 * whose cell pads the text. Graphviz sizes labels with its own font metrics, and a browser draws some
 * glyphs (arrows like `←` most of all) wider; Graphviz also routes an edge up to the very border of its
 * label's box. Short lines and an invisible margin inside that box keep the drawn text clear of the edges.
 */
function edgeLabel(label: string, action: string): Html {
  const rest = label.startsWith(`${action} `) ? label.slice(action.length + 1) : label.startsWith(action) ? label.slice(action.length) : '';
  const lines = !label.startsWith(action) || rest === '' ? [truncate(label, 40)] : [action, ...rest.split(/(?<=:) /).map((w) => truncate(w, 30))];
  return { html: `<table border="0" cellborder="0" cellspacing="0" cellpadding="${EDGE_LABEL_MARGIN}"><tr><td>${lines.map(htmlText).join('<br/>')}</td></tr></table>` };
}

/** Points of empty space between an edge label's text and the border Graphviz keeps its edge outside of. */
const EDGE_LABEL_MARGIN = 4;

/** A DOT HTML-like label (`label=<…>`), for the markup plain strings cannot carry. */
interface Html {
  readonly html: string;
}

function htmlText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function kindNote(g: StateGraph): string {
  const info = g.getAttributes();
  if (info.kind === 'neighbourhood') return `with every successor up to ${info.hops ?? 1} step(s) off the trace (${g.order} states, ${g.size} transitions)`;
  if (info.kind === 'reachable') return `whole reachable state graph (${g.order} states, ${g.size} transitions)`;
  return '';
}

function autoMode(g: StateGraph): 'full' | 'changes' {
  if (g.order > AUTO_FULL_STATES) return 'changes';
  // Full labels only when nothing would be cut: a truncated Kafka state hides exactly what matters.
  let fits = true;
  g.forEachNode((_, a) => {
    const lines = Object.entries(a.vars).map(([k, v]) => `/\\ ${k} = ${formatValue(v)}`);
    if (lines.some((l) => l.length > MAX_LINE) || lines.reduce((n, l) => n + l.length, 0) > AUTO_FULL_CHARS) fits = false;
  });
  return fits ? 'full' : 'changes';
}

function fullLines(a: StateNode): string[] {
  return Object.entries(a.vars).map(([k, v]) => truncate(`/\\ ${k} = ${formatValue(v)}`, MAX_LINE));
}

/** The lines of a state's label: which state it is, what it holds (or what changed), what it violates. */
export function nodeLines(g: StateGraph, a: StateNode, mode: 'full' | 'changes'): string[] {
  const lines: string[] = [a.steps.length > 0 ? `step${a.steps.length > 1 ? 's' : ''} ${a.steps.join(', ')}` : a.label];
  if (mode === 'full') {
    lines.push(...fullLines(a));
  } else if (a.parent !== undefined && g.hasNode(a.parent)) {
    for (const r of diffFields(g.getNodeAttribute(a.parent, 'vars'), a.vars)) {
      if (r.change === 'removed') lines.push(truncate(`${r.path} removed`, MAX_LINE));
      else if (r.delta !== undefined) for (const d of r.delta.split(/, (?=[+−] )/)) lines.push(truncate(`${r.path} ${d}`, MAX_LINE));
      else if (r.change !== undefined) lines.push(truncate(`${r.path} = ${r.value ?? ''}`, MAX_LINE));
    }
  } else {
    const fields = flattenState(a.vars);
    for (const f of fields.slice(0, INITIAL_FIELDS_SHOWN)) lines.push(truncate(`${f.path} = ${formatValue(f.value)}`, MAX_LINE));
    if (fields.length > INITIAL_FIELDS_SHOWN) lines.push(`… ${fields.length - INITIAL_FIELDS_SHOWN} more fields`);
  }
  if (a.violates !== undefined) lines.push(a.byStep ? `✗ the last step into it breaks ${a.violates}` : `✗ violates ${a.violates}`);
  return lines;
}

function nodeAttributes(g: StateGraph, key: string, a: StateNode, mode: 'full' | 'changes'): Record<string, string | number> {
  const classes = ['state', a.onTrace ? 'trace' : 'neighbour', ...a.steps.map((s) => `step-${s}`)];
  const styles = ['rounded'];
  const out: Record<string, string | number> = {
    id: `state-${key}`,
    label: `${nodeLines(g, a, mode).join('\\l')}\\l`,
    tooltip: Object.entries(a.vars).map(([k, v]) => `/\\ ${k} = ${formatValue(v)}`).join('\n'),
  };
  if (a.initial) {
    classes.push('initial');
    styles.push('filled');
    out.fillcolor = INITIAL_FILL;
  }
  if (a.violates !== undefined) {
    classes.push('violating');
    if (!styles.includes('filled')) styles.push('filled');
    out.fillcolor = VIOLATION_FILL;
    out.color = VIOLATION_COLOUR;
    out.fontcolor = '#7a0c0c';
    out.peripheries = 2;
    out.penwidth = 2;
  } else if (!a.onTrace) {
    out.color = '#9a9a9a';
    out.fontcolor = '#4a4a4a';
  } else {
    out.penwidth = 1.6;
  }
  if (a.frontier) classes.push('frontier');
  out.class = classes.join(' ');
  out.style = styles.join(',');
  return out;
}

function legend(g: StateGraph): string[] {
  const info = g.getAttributes();
  const used = new Set(g.mapEdges((_, e) => e.action));
  const actions = info.actions.filter((a) => used.has(a));
  const hasInitial = g.someNode((_, a) => a.initial);
  const hasViolation = g.someNode((_, a) => a.violates !== undefined);
  const ids: string[] = [];
  const lines = [
    '  subgraph cluster_legend {',
    '    label="Next State Actions"; style="solid"; color="#bbbbbb"; fontname="Helvetica"; fontsize=11;',
    '    node [shape=box, style="filled", fontname="Helvetica", fontsize=10, fontcolor="white", margin="0.1,0.04"];',
  ];
  actions.forEach((name, i) => {
    const style = styleOf(info.actions, name);
    const id = `legend_action_${i}`;
    ids.push(id);
    lines.push(`    ${q(id)} [${attrs({ id: `legend-action-${i}`, class: 'legend action', label: name, fillcolor: style.colour, ...(style.dashed ? { style: 'filled,dashed', color: 'black' } : { color: style.colour }) })}];`);
  });
  if (hasInitial) {
    ids.push('legend_initial');
    lines.push(`    "legend_initial" [${attrs({ id: 'legend-initial', class: 'legend mark', label: 'initial state', style: 'rounded,filled', fillcolor: INITIAL_FILL, fontcolor: 'black', color: 'black' })}];`);
  }
  if (hasViolation) {
    ids.push('legend_violation');
    const what = info.verdict?.kind === 'deadlock' ? 'deadlock' : info.verdict?.kind === 'everyStep' ? 'reached by a step that breaks a step property' : 'violates an invariant';
    lines.push(`    "legend_violation" [${attrs({ id: 'legend-violation', class: 'legend mark', label: what, style: 'rounded,filled', fillcolor: VIOLATION_FILL, color: VIOLATION_COLOUR, fontcolor: '#7a0c0c', peripheries: 2 })}];`);
  }
  // Invisible edges stack the legend vertically instead of one very wide rank.
  for (let i = 1; i < ids.length; i++) lines.push(`    ${q(ids[i - 1]!)} -> ${q(ids[i]!)} [style=invis];`);
  lines.push('  }');
  return ids.length > 0 ? lines : [];
}

function attrs(a: Record<string, string | number | Html>): string {
  return Object.entries(a)
    .map(([k, v]) => `${k}=${typeof v === 'number' ? v : typeof v === 'object' ? `<${v.html}>` : k === 'label' ? qLabel(v) : q(v)}`)
    .join(', ');
}

/** A DOT quoted string. Newlines become `\n`; backslashes are literal (TLA+'s `/\` stays `/\`). */
export function q(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\r?\n/g, '\\n')}"`;
}

/** Like `q`, but keeps the `\l` line ends that `nodeLines` joined with, escaping every other backslash. */
function qLabel(s: string): string {
  return `"${s
    .split('\\l')
    .map((part) => part.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\r?\n/g, '\\n'))
    .join('\\l')}"`;
}
