/** A worker thread of the parallel search: see protocol.ts for the division of labour. */
import { parentPort, workerData } from 'node:worker_threads';
import { Expander, SpecError } from '../expander.ts';
import { importDefinition } from '../../run/loadSpec.ts';
import { accelerateRecords } from '../recordAcceleration.ts';
import { FingerprintSetView } from '../state/fingerprintSet.ts';
import { GrowableU32 } from '../state/growable.ts';
import { KEEP_WORDS, NEW_STATE_WORDS, OUTSIDE_CONSTRAINT, PARENT_HEADER, sendSpecError, type FromWorker, type ToWorker, type WorkerSetup } from './protocol.ts';

const setup = workerData as WorkerSetup;
const port = parentPort!;
const send = (m: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);
const heapUsed = () => process.memoryUsage().heapUsed;

accelerateRecords();
const definition = await importDefinition(setup.modulePath);
const expander = new Expander(definition.build(setup.params), setup.symmetry);
/** This worker's share of the current level, in position order, and each state's position in the level. */
let level: unknown[] = [];
let positions: number[] = [];

function expand(seenBuffer: SharedArrayBuffer): void {
  const seen = new FingerprintSetView(seenBuffer);
  const parents = new GrowableU32();
  const candidates = new GrowableU32();
  const fired = new Uint32Array(expander.actions.length);
  for (let i = 0; i < level.length; i++) {
    const s = level[i];
    const pos = positions[i]!;
    const header = parents.length;
    for (let k = 0; k < PARENT_HEADER; k++) parents.push(0);
    let generated = 0;
    let candidateCount = 0;
    fired.fill(0);
    try {
      expander.successors(s, (t, action, _params, ordinal) => {
        generated++;
        fired[action]!++;
        if (!expander.admits(s, t)) {
          // Outside the constraints: checked here, sent only when an invariant fails on it (see protocol.ts).
          const bad = expander.firstViolation(t);
          if (bad < 0) return;
          candidateCount++;
          candidates.push(bad);
          candidates.push(0);
          candidates.push(action | OUTSIDE_CONSTRAINT);
          candidates.push(ordinal);
          candidates.push(generated - 1);
          return;
        }
        expander.fingerprint(t);
        if (seen.has(expander.hi, expander.lo)) return;
        candidateCount++;
        candidates.push(expander.hi);
        candidates.push(expander.lo);
        candidates.push(action);
        candidates.push(ordinal);
        candidates.push(generated - 1);
      });
    } catch (e) {
      if (!(e instanceof SpecError)) throw e;
      // As in one thread: the counts of the action that threw are not taken (the expander adds an action's
      // counts once it is done).
      fired[expander.expandingAction] = 0;
      finishRecord(parents, header, generated, candidateCount, fired);
      const p = parents.take();
      const c = candidates.take();
      send({ type: 'expanded', parents: p, candidates: c, error: { position: pos, cause: sendSpecError(e) }, heapUsed: heapUsed() }, [p.buffer as ArrayBuffer, c.buffer as ArrayBuffer]);
      return;
    }
    finishRecord(parents, header, generated, candidateCount, fired);
  }
  const p = parents.take();
  const c = candidates.take();
  send({ type: 'expanded', parents: p, candidates: c, error: null, heapUsed: heapUsed() }, [p.buffer as ArrayBuffer, c.buffer as ArrayBuffer]);
}

function finishRecord(parents: GrowableU32, header: number, generated: number, candidateCount: number, fired: Uint32Array): void {
  let pairs = 0;
  for (let a = 0; a < fired.length; a++) {
    if (fired[a] === 0) continue;
    parents.push(a);
    parents.push(fired[a]!);
    pairs++;
  }
  parents.set(header, generated);
  parents.set(header + 1, candidateCount);
  parents.set(header + 3, pairs);
}

/** Rebuilds the next level searched in one thread, whole, by re-running one action per state. */
function replay(newStates: Uint32Array): void {
  const next: unknown[] = new Array(newStates.length / NEW_STATE_WORDS);
  for (let i = 0; i < next.length; i++) {
    const at = i * NEW_STATE_WORDS;
    next[i] = expander.nthSuccessor(level[newStates[at]!], newStates[at + 1]!, newStates[at + 2]!);
  }
  level = next;
  positions = Array.from(next, (_, pos) => pos);
}

/** Keeps this worker's share of a whole level: positions index, index + count, … */
function share(): void {
  level = level.filter((_, pos) => pos % setup.count === setup.index);
  positions = positions.filter((pos) => pos % setup.count === setup.index);
}

/** Makes this worker's share of the next level from its share of the current one, and checks it. */
function advance(keep: Uint32Array, firstId: number): void {
  const next: unknown[] = new Array(keep.length / KEEP_WORDS);
  const nextPositions: number[] = new Array(next.length);
  const witnessMin = new Float64Array(expander.witnesses.length).fill(-1);
  const reached = new Uint8Array(expander.witnesses.length);
  let violation: { id: number; invariant: number } | null = null;
  for (let i = 0; i < next.length; i++) {
    const at = i * KEEP_WORDS;
    const action = keep[at + 1]!;
    const pos = keep[at + 3]!;
    const id = firstId + pos;
    nextPositions[i] = pos;
    try {
      const t = expander.nthSuccessor(level[keep[at]!], action & ~OUTSIDE_CONSTRAINT, keep[at + 2]!);
      next[i] = t;
      if (violation === null) {
        const bad = expander.firstViolation(t);
        if (bad >= 0) violation = { id, invariant: bad };
      }
      // A state outside the CONSTRAINT is here only for its violation: it reaches no witness.
      if ((action & OUTSIDE_CONSTRAINT) === 0 && expander.markWitnesses(t, reached) > 0) {
        for (let w = 0; w < reached.length; w++) if (reached[w] && witnessMin[w] === -1) witnessMin[w] = id;
      }
    } catch (e) {
      if (!(e instanceof SpecError)) throw e;
      send({ type: 'checked', violation, witnessMin, error: { id, cause: sendSpecError(e) }, heapUsed: heapUsed() });
      return;
    }
  }
  level = next;
  positions = nextPositions;
  send({ type: 'checked', violation, witnessMin, error: null, heapUsed: heapUsed() });
}

port.on('message', (m: ToWorker) => {
  try {
    switch (m.type) {
      case 'start': {
        const inits = expander.initialStates();
        level = Array.from(m.initIndexes, (i) => inits[i]);
        positions = Array.from(level, (_, pos) => pos);
        send({ type: 'started' });
        break;
      }
      case 'expand':
        expand(m.seen);
        break;
      case 'replay':
        replay(m.newStates);
        send({ type: 'replayed' });
        break;
      case 'share':
        share();
        break;
      case 'advance':
        advance(m.keep, m.firstId);
        break;
      case 'stop':
        port.close();
        break;
    }
  } catch (e) {
    send({ type: 'failed', message: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  }
});
send({ type: 'ready' });
