/**
 * The Die Hard water-jug puzzle (TLA+ Examples `DieHard.tla`): with a 5- and a 3-gallon jug, measure
 * exactly 4 gallons. The "solution" is a counterexample to `NotSolved`, and BFS finds a shortest one.
 */
import { defineSpec, type Action } from '../spec.ts';
import { always } from '../../invariants/property.ts';
import { layout as L, type Packed } from '../layout/index.ts';

/** Each jug holds between 0 and its capacity: the layout is the puzzle's TypeOK. */
export function jugsLayout(smallCap: number, bigCap: number) {
  return L.record('Jugs', { small: L.int(0, smallCap), big: L.int(0, bigCap) });
}
export type Jugs = Packed<ReturnType<typeof jugsLayout>>;

function actions(smallCap: number, bigCap: number): Action<Jugs, {}>[] {
  return [
    { name: 'FillSmallJug', next: (s) => s.set('small', smallCap) },
    { name: 'FillBigJug', next: (s) => s.set('big', bigCap) },
    { name: 'EmptySmallJug', next: (s) => s.set('small', 0) },
    { name: 'EmptyBigJug', next: (s) => s.set('big', 0) },
    {
      name: 'SmallToBig',
      next: (s) => {
        const poured = Math.min(s.small, bigCap - s.big);
        return s.merge({ small: s.small - poured, big: s.big + poured });
      },
    },
    {
      name: 'BigToSmall',
      next: (s) => {
        const poured = Math.min(s.big, smallCap - s.small);
        return s.merge({ small: s.small + poured, big: s.big - poured });
      },
    },
  ];
}

export default defineSpec<Jugs>({
  name: 'diehard',
  description: 'The Die Hard water-jug puzzle: reach a jug holding exactly the goal (a shortest solution is the counterexample)',
  params: [
    { name: 'small', description: 'capacity of the small jug, gallons', type: 'int', default: 3, min: 1, max: 20 },
    { name: 'big', description: 'capacity of the big jug, gallons', type: 'int', default: 5, min: 1, max: 20 },
    { name: 'goal', description: 'gallons to measure in the big jug', type: 'int', default: 4, min: 0, max: 20 },
  ],
  presets: [
    { name: 'classic', description: '3 and 5 gallon jugs, measure 4: solved in 6 steps', params: {}, expect: { verdict: 'violates', property: 'NotSolved' } },
    { name: 'impossible', description: '2 and 4 gallon jugs cannot measure 3: NotSolved holds', params: { small: 2, big: 4, goal: 3 }, expect: { verdict: 'holds' } },
  ],
  build: ({ small, big, goal }) => {
    const Jugs = jugsLayout(small as number, big as number);
    return {
      layout: Jugs,
      init: () => [Jugs.from({ small: 0, big: 0 })],
      actions: actions(small as number, big as number),
      properties: [always<Jugs>('NotSolved', `the big jug never holds exactly ${String(goal)} gallons`, (s) => s.big !== goal)],
    };
  },
});
