/**
 * kmc's public API: everything a spec author imports. A spec module default-exports `defineSpec({...})`;
 * its properties are built with `always`, `sometimes`, `initially` and `everyStep`, its liveness properties with `eventually`,
 * `leadsTo`, `alwaysEventually` and `eventuallyAlways` (under the actions' `fairness`).
 */
export { defineSpec } from './spec.ts';
export type {
  Action,
  ActionParams,
  Expectation,
  Message,
  Model,
  ParamDef,
  ParamValue,
  ParamValues,
  Preset,
  SpecDefinition,
  StepEvents,
  Symmetry,
} from './spec.ts';
export { always, everyStep, initially, sometimes } from '../invariants/property.ts';
export { layout, LayoutError } from './layout/index.ts';
export type { Packed } from './layout/index.ts';
export type { Property, PropertyOptions } from '../invariants/property.ts';
export { alwaysEventually, eventually, eventuallyAlways, leadsTo } from '../invariants/temporal.ts';

// Running a check from a program: the report `kmc check --json` prints (checker/run/api.ts).
export { check } from '../checker/run/api.ts';
export type { CheckCall, CheckOutcome } from '../checker/run/api.ts';
export type { CheckReport } from '../checker/run/report.ts';
export { UserError } from '../checker/run/userError.ts';
