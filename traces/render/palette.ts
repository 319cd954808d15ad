/**
 * Action colours, shared by the state graph, its legend and the sequence diagram so one action has one
 * colour everywhere. Red is kept for violations; after the palette runs out, colours repeat with dashes.
 */
const COLOURS = [
  '#1f77b4', // blue
  '#ff7f0e', // orange
  '#2ca02c', // green
  '#9467bd', // purple
  '#8c564b', // brown
  '#e377c2', // pink
  '#17becf', // cyan
  '#bcbd22', // olive
  '#393b79', // navy
  '#b8860b', // dark gold
  '#637939', // moss
  '#7f7f7f', // grey
] as const;

export const VIOLATION_COLOUR = '#d62728';
export const VIOLATION_FILL = '#fde0e0';
export const INITIAL_FILL = '#e8eef7';

export interface ActionStyle {
  readonly colour: string;
  readonly dashed: boolean;
}

/** Style of the action at `index` in the graph's action order. */
export function actionStyle(index: number): ActionStyle {
  const i = Math.max(0, index);
  return { colour: COLOURS[i % COLOURS.length]!, dashed: Math.floor(i / COLOURS.length) % 2 === 1 };
}

export function styleOf(actions: readonly string[], action: string): ActionStyle {
  return actionStyle(actions.indexOf(action));
}
