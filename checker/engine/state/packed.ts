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

/** How an error about such a spec starts (it may reach the CLI as a worker thread's message). */
export const CANNOT_BE_CHECKED = 'the spec cannot be checked: ';

/**
 * What is wrong with a value that looks like a layout's view but is not one of this kmc's (its class comes
 * from a second copy of the layout library), said for the spec's author; null for any other value.
 */
export function viewOfAnotherKmc(v: unknown): string | null {
  if (typeof v !== 'object' || v === null || v instanceof View) return null;
  const looksLikeView = '_t' in v && '_b' in v && (v as { _b: unknown })._b instanceof Uint8Array;
  if (!looksLikeView) return null;
  const name = Object.getPrototypeOf(v)?.constructor?.name ?? 'view';
  return `its states are ${name}s of a second copy of kmc's layout library, not of the kmc that checks it: the spec imports kmc's sources by path (compiled as CommonJS, or from another checkout). Import kmc as 'kafka-model-checker' (docs/layouts.md)`;
}
