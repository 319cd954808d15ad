/**
 * Two-phase commit with the whole state packed into one number, for the benchmark only: the same state
 * space as spec/twophase/twoPhase.ts (TLC's counts), without Immutable.js in the hot loop. Comparing the two
 * rows of `npm run bench` separates the checker's own cost from the cost of the authoring surface.
 *
 * Layout: a = rmState (2 bits per RM) | tmState << 16 | tmPrepared << 18; b = Prepared messages
 * (1 bit per RM) | Commit << 8 | Abort << 9; state = a * 1024 + b.
 */
import { defineSpec, type Action } from '../spec/spec.ts';
import { always } from '../invariants/property.ts';

const WORKING = 0;
const PREPARED = 1;
const COMMITTED = 2;
const ABORTED = 3;
const TM_INIT = 0;
const TM_COMMITTED = 1;
const TM_ABORTED = 2;

const pack = (a: number, b: number) => a * 1024 + b;
const aOf = (s: number) => Math.floor(s / 1024);
const bOf = (s: number) => s % 1024;
const rmOf = (a: number, rm: number) => (a >>> (2 * rm)) & 3;
const withRm = (a: number, rm: number, v: number) => (a & ~(3 << (2 * rm))) | (v << (2 * rm));
const tmOf = (a: number) => (a >>> 16) & 3;

function actions(n: number): Action<number, { rm: number }>[] {
  const rms = Array.from({ length: n }, (_, rm) => ({ rm }));
  const each = () => rms;
  const all = (1 << n) - 1;
  return [
    {
      name: 'TMRcvPrepared',
      params: each,
      enabled: (s, { rm }) => tmOf(aOf(s)) === TM_INIT && (bOf(s) & (1 << rm)) !== 0,
      next: (s, { rm }) => pack(aOf(s) | (1 << (18 + rm)), bOf(s)),
    },
    { name: 'TMCommit', enabled: (s) => tmOf(aOf(s)) === TM_INIT && ((aOf(s) >>> 18) & all) === all, next: (s) => pack(aOf(s) | (TM_COMMITTED << 16), bOf(s) | 256) },
    { name: 'TMAbort', enabled: (s) => tmOf(aOf(s)) === TM_INIT, next: (s) => pack(aOf(s) | (TM_ABORTED << 16), bOf(s) | 512) },
    { name: 'RMPrepare', params: each, enabled: (s, { rm }) => rmOf(aOf(s), rm) === WORKING, next: (s, { rm }) => pack(withRm(aOf(s), rm, PREPARED), bOf(s) | (1 << rm)) },
    { name: 'RMChooseToAbort', params: each, enabled: (s, { rm }) => rmOf(aOf(s), rm) === WORKING, next: (s, { rm }) => pack(withRm(aOf(s), rm, ABORTED), bOf(s)) },
    { name: 'RMRcvCommitMsg', params: each, enabled: (s) => (bOf(s) & 256) !== 0, next: (s, { rm }) => pack(withRm(aOf(s), rm, COMMITTED), bOf(s)) },
    { name: 'RMRcvAbortMsg', params: each, enabled: (s) => (bOf(s) & 512) !== 0, next: (s, { rm }) => pack(withRm(aOf(s), rm, ABORTED), bOf(s)) },
  ];
}

export default defineSpec<number>({
  name: 'twophase-packed',
  description: 'two-phase commit with a packed number state (benchmark comparison only)',
  params: [{ name: 'rm', description: 'number of resource managers', type: 'int', default: 3, min: 1, max: 8 }],
  presets: [],
  build: ({ rm }) => ({
    init: () => [0],
    actions: actions(rm as number),
    properties: [
      always<number>('TCConsistent', 'no resource manager has committed while another has aborted', (s) => {
        let committed = false;
        let aborted = false;
        for (let i = 0; i < (rm as number); i++) {
          const v = rmOf(aOf(s), i);
          committed ||= v === COMMITTED;
          aborted ||= v === ABORTED;
        }
        return !(committed && aborted);
      }),
    ],
  }),
});
