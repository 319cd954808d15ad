/**
 * State layouts: a spec's state shape declared once, from which kmc derives a fixed-width packed
 * encoding (equal states, equal bytes) and immutable views with the Immutable.js vocabulary.
 * See docs/layouts.md.
 */
import * as layout from './builders.ts';

export { layout };
export { LayoutError } from './errors.ts';
export { LType, RecordType, type Packed, type ReadOf, type InputOf, type RecordOf, type Fields, type Key } from './types.ts';
export { View, RecordView, MapView, IdSetView, ListView, SetView } from './views.ts';
export { isPacked } from './packed.ts';
export { LayoutSymmetry, permuteBytes } from './symmetry.ts';
