import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MultiDirectedGraph } from 'graphology';
import { parse as parseGexf } from 'graphology-gexf';
import { parse as parseGraphml } from 'graphology-graphml';
import twoPhase from '../../spec/twophase/twoPhase.ts';
import { checkModel } from '../../checker/engine/check.ts';
import { neighbourhoodGraph } from '../../checker/engine/reachableGraph.ts';
import { toItf, type ItfTrace } from '../itf/write.ts';
import { toDot } from './dot.ts';
import { toGexf, toGraphml } from './exchange.ts';
import { traceGraph } from './stateGraph.ts';
import { DotError, dotToJson, dotToSvg, type GraphvizJson, type GraphvizObject } from './svg.ts';
import { VIOLATION_COLOUR, actionStyle } from './palette.ts';

const params = { rm: 3, bug: 'tmCommitEarly' };
async function twoPhaseTrace(): Promise<ItfTrace> {
  const r = await checkModel(twoPhase.build(params), {}, { spec: 'twophase', params });
  assert.ok(r.status === 'violation' && r.trace, `expected a violation with a trace, got ${r.status}`);
  return toItf(r.trace);
}
const TRACE_ACTIONS = ['RMPrepare', 'TMRcvPrepared', 'TMCommit', 'RMChooseToAbort', 'RMRcvCommitMsg'];

/** Graphviz's own reading of the DOT: the nodes of each cluster and the drawn edges. */
function shape(j: GraphvizJson) {
  const objects = j.objects ?? [];
  const byId = new Map(objects.map((o) => [o._gvid, o]));
  const cluster = (name: string) => objects.find((o) => o.name === name)!.nodes!.map((id) => byId.get(id)!);
  const edges = (j.edges ?? []).filter((e) => e.style !== 'invis');
  return { states: cluster('cluster_graph'), legend: cluster('cluster_legend'), edges, byId };
}
const cls = (o: GraphvizObject) => String(o.class ?? '').split(' ');

test('the DOT of a counterexample parses back in Graphviz with every state, transition, legend entry and mark', async () => {
  const itf = await twoPhaseTrace();
  const { states, legend, edges, byId } = shape(await dotToJson(toDot(traceGraph(itf))));
  assert.equal(states.length, 6);
  assert.equal(edges.length, 5);
  // Edges run step by step, coloured and labelled by action, bold on the trace.
  edges.forEach((e, i) => {
    assert.equal(cls(byId.get(e.head)!).includes(`step-${i + 1}`), true);
    assert.equal(e.color, actionStyle(i).colour);
    // An HTML-like label: the action's name opens the padded cell.
    assert.match(String(e.label), new RegExp(`^<table border="0" cellborder="0" cellspacing="0" cellpadding="4"><tr><td>${TRACE_ACTIONS[i]}\\b`));
    assert.equal(e.penwidth, '2.4');
  });
  // Legend: each action with its edge colour, then the initial and violation marks.
  assert.deepEqual(legend.map((o) => String(o.label)), [...TRACE_ACTIONS, 'initial state', 'violates an invariant']);
  legend.slice(0, 5).forEach((o, i) => assert.equal(o.fillcolor, actionStyle(i).colour));
  const initial = states.filter((o) => cls(o).includes('initial'));
  assert.deepEqual(initial.map((o) => cls(o)), [['state', 'trace', 'step-0', 'initial']]);
  assert.match(String(initial[0]!.style), /filled/);
  const bad = states.filter((o) => cls(o).includes('violating'));
  assert.equal(bad.length, 1);
  assert.equal(bad[0]!.color, VIOLATION_COLOUR);
  assert.equal(bad[0]!.peripheries, '2');
  assert.match(String(bad[0]!.label), /step 5\\l.*\/\\\\ rmState = \[r1 \|-> "committed", r2 \|-> "aborted", r3 \|-> "working"\]\\l.*✗ violates TCConsistent\\l$/s);
});

test('the neighbourhood DOT marks the other violating states and draws off-trace states grey', async () => {
  const itf = await twoPhaseTrace();
  const g = neighbourhoodGraph(twoPhase.build(params), itf, 1);
  const { states, edges, legend } = shape(await dotToJson(toDot(g)));
  assert.equal(states.length, 31);
  assert.equal(edges.length, 32);
  assert.equal(states.filter((o) => cls(o).includes('violating')).length, 2);
  assert.equal(states.filter((o) => cls(o).includes('neighbour')).length, 25);
  assert.equal(edges.filter((e) => e.penwidth === '2.4').length, 5);
  // The legend lists the actions that fire here, in the model's action order (RMRcvAbortMsg never does), then the marks.
  assert.deepEqual(
    legend.map((o) => String(o.label)),
    ['TMRcvPrepared', 'TMCommit', 'TMAbort', 'RMPrepare', 'RMChooseToAbort', 'RMRcvCommitMsg', 'initial state', 'violates an invariant'],
  );
  // Many states: labels show what changed, not the whole state.
  assert.match(String(states.find((o) => cls(o).includes('step-4'))!.label), /^step 4\\lrmState\[r2\] = "aborted"\\l$/);
});

test('labels: full and changes on request; DOT text escapes quotes and backslashes', async () => {
  const g = traceGraph(await twoPhaseTrace());
  const full = toDot(g, { labels: 'full' });
  assert.match(full, /label="step 1\\l\/\\\\ rmState = \[r1 \|-> \\"prepared\\", r2 \|-> \\"working\\", r3 \|-> \\"working\\"\]\\l/);
  const changes = toDot(g, { labels: 'changes' });
  assert.match(changes, /label="step 3\\ltmState = \\"committed\\"\\lmsgs \+ \[type \|-> \\"Commit\\", rm \|-> None\]\\l"/);
});

test('the SVG is rendered in-process and keeps the ids the HTML report highlights', async () => {
  // Graphviz writes '-' in ids and classes as &#45;, which the browser decodes.
  const svg = (await dotToSvg(toDot(traceGraph(await twoPhaseTrace())))).replace(/&#45;/g, '-');
  assert.match(svg, /<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.equal([...svg.matchAll(/<g id="state-s[0-9a-f]+" class="node state trace step-\d/g)].length, 6);
  assert.equal([...svg.matchAll(/<g id="edge-e\d+" class="edge transition trace step-\d/g)].length, 5);
  await assert.rejects(dotToSvg('digraph { a -> }'), DotError);
});

test('GraphML and GEXF read back into graphology with the same states, transitions and marks', async () => {
  const g = traceGraph(await twoPhaseTrace());
  for (const [name, text, parse] of [
    ['graphml', toGraphml(g), (t: string) => parseGraphml(MultiDirectedGraph, t)],
    ['gexf', toGexf(g), (t: string) => parseGexf(MultiDirectedGraph, t)],
  ] as const) {
    const back = parse(text);
    assert.equal(back.order, 6, name);
    assert.equal(back.size, 5, name);
    assert.equal(back.getAttribute('violated'), 'TCConsistent', name);
    const violating = back.filterNodes((_, a) => a.violates === 'TCConsistent');
    assert.equal(violating.length, 1, name);
    assert.equal(back.getNodeAttribute(violating[0]!, 'label'), 'step 5', name);
    assert.match(String(back.getNodeAttribute(violating[0]!, 'state')), /^\/\\ rmState = \[r1 \|-> "committed"/, name);
    assert.deepEqual(back.mapEdges((_, a) => a.action), TRACE_ACTIONS, name);
    assert.deepEqual(back.mapEdges((_, a) => a.onTrace), [true, true, true, true, true], name);
  }
});
