import type { Expander } from '../expander.ts';
import type { CheckOptions } from '../options.ts';
import type { Limits } from '../limits.ts';
import type { SearchOutcome } from '../search.ts';
import { breadthFirst } from '../bfs.ts';
import type { ParamValues } from '../../spec/spec.ts';

/** How a worker thread loads the same model: a module path and the parameters to build it with. */
export interface ModelSource {
  readonly modulePath: string;
  readonly params: ParamValues;
}

export async function parallelBreadthFirst<S>(expander: Expander<S>, _source: ModelSource, options: CheckOptions, limits: Limits, _workers: number): Promise<SearchOutcome> {
  return breadthFirst(expander, options, limits);
}
