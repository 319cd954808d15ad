/**
 * kmc's public API: everything a spec author imports. A spec module default-exports `defineSpec({...})`;
 * its properties are built with `always` and `sometimes`.
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
export { always, sometimes } from '../invariants/property.ts';
export { layout, LayoutError } from './layout/index.ts';
export type { Packed } from './layout/index.ts';
export type { Property, PropertyOptions } from '../invariants/property.ts';
