import type { ParamValues } from '../../spec/spec.ts';

/** How another thread or process loads the model a search checks: the spec's module and the parameters to build it with. */
export interface ModelSource {
  readonly modulePath: string;
  readonly params: ParamValues;
}
