/**
 * How the engine recognises a state declared with a layout: it carries its bytes and its layout. The
 * engine needs nothing else of a packed state; everything a spec reads goes through the layout's view.
 */
export interface PackedState {
  readonly bytes: Uint8Array;
  readonly layout: PackedLayout;
}

/** What the engine needs of a layout: the width of a state and a view over bytes. */
export interface PackedLayout {
  readonly width: number;
  wrap(bytes: Uint8Array): unknown;
}

export function isPacked(v: unknown): v is PackedState {
  return typeof v === 'object' && v !== null && (v as { bytes?: unknown }).bytes instanceof Uint8Array && (v as { layout?: unknown }).layout !== undefined;
}
