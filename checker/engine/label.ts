/** What a check is of, as reports and traces name it: the spec, its preset if one was named, and every parameter. */
import type { ParamValues } from '../../spec/spec.ts';

export interface CheckLabel {
  readonly spec: string;
  readonly preset?: string;
  readonly params: ParamValues;
}
