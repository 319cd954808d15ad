/**
 * How the engine sees a state declared with a layout: its bytes and its layout (width, and a view over
 * bytes). Everything a spec reads goes through the layout's view; the engine needs nothing else.
 */
import { View } from '../../../spec/layout/views.ts';

export type PackedState = View;

/** What the engine needs of a layout: the width of a state and a view over bytes. */
export interface PackedLayout {
  readonly width: number;
  wrap(bytes: Uint8Array): unknown;
  /** A view of the state at offset `o` of `bytes` (no subarray made). */
  wrapAt(bytes: Uint8Array, o: number): unknown;
}

export function isPacked(v: unknown): v is View {
  return v instanceof View;
}

export function layoutOf(v: View): PackedLayout {
  return v._t;
}
