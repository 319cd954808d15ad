import { readFileSync, writeFileSync } from 'node:fs';
import { parseItf } from './readItf.ts';
import twoPhase from '../../spec/toy/twoPhase.ts';
import { neighbourhoodGraph, reachableGraph } from '../../checker/stateGraph.ts';
import { checkModel } from '../../checker/check.ts';
import { toDot } from './dot.ts';
import { dotToSvg } from './svg.ts';
const itf = parseItf(readFileSync('/tmp/kmcr/tp.itf.json','utf8'));
const m = twoPhase.build({ rm: 3, bug: 'tmCommitEarly' });
for (const k of [0,1,2,3]) { const g = neighbourhoodGraph(m, itf, k); let v=0; g.forEachNode((_, a) => { if (a.violates) v++; }); console.log('hops', k, g.order, g.size, 'violating', v); }
const r = reachableGraph(twoPhase.build({ rm: 3, bug: 'none' }), { spec: 'twophase' });
console.log('reach', r.order, r.size);
const res = await checkModel(twoPhase.build({ rm: 3, bug: 'none' }), {}, { spec: 'twophase', params: {} });
console.log(res.stats.distinct, res.stats.generated);
const g1 = neighbourhoodGraph(m, itf, 1);
const t = Date.now(); writeFileSync('/tmp/kmcr/n1.svg', await dotToSvg(toDot(g1))); console.log('svg ms', Date.now()-t);
const t2 = Date.now(); writeFileSync('/tmp/kmcr/r.svg', await dotToSvg(toDot(r))); console.log('svg reach ms', Date.now()-t2);
try { reachableGraph(twoPhase.build({ rm: 5, bug: 'none' }), { spec: 'twophase', title: 'twophase rm=5' }); } catch (e) { console.log(e.constructor.name, e.message); }
