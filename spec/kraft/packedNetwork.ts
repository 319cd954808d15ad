/**
 * The network of a packed state written in place. A step runs inside one mutable copy of its state
 * (`withMutations`); a send or a receipt written there as `s.set('net', s.net.add(m))` builds the whole
 * network once more in scratch bytes and copies it back. Here a message is inserted into (or removed
 * from) the copy's own sorted slots, as `SetView.add`/`remove` would order them, so the bytes are the
 * same as those writes give.
 */
import { View } from '../layout/index.ts';
import { compareBytes, copyInto, writeCode } from '../layout/bytes.ts';
import type { RecordType, SeqType } from '../layout/types.ts';

/** A packed network: a set view (sorted slots after a count). */
type NetView = View & { readonly _t: SeqType };

/** Whether `m` is a packed message of the network's element layout (its bytes are a slot's bytes). */
function isElement(net: NetView, m: unknown): m is View {
  return m instanceof View && (m._t as RecordType).tag?.variant === (net._t.elem as unknown);
}

/** Slot of the element at `mb[mo]` (>= 0), or `-(insertion slot) - 1`. */
function search(b: Uint8Array, base: number, n: number, ew: number, mb: Uint8Array, mo: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareBytes(b, base + mid * ew, mb, mo, ew) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && compareBytes(b, base + lo * ew, mb, mo, ew) === 0 ? lo : -lo - 1;
}

/**
 * Adds `m` to the network's own bytes. False when it cannot be done in place (not a packed message of
 * this layout, or the set is full): the caller then writes through the view, which reports a full set.
 */
export function addInPlace(netValue: unknown, m: unknown): boolean {
  const net = netValue as NetView;
  if (!isElement(net, m)) return false;
  const { lw, ew, max } = net._t;
  const b = net._b;
  const o = net._o;
  const n = net._t.size(b, o);
  const base = o + lw;
  const i = search(b, base, n, ew, m._b, m._o);
  if (i >= 0) return true;
  if (n === max) return false;
  const at = -i - 1;
  b.copyWithin(base + (at + 1) * ew, base + at * ew, base + n * ew);
  copyInto(m._b, m._o, b, base + at * ew, ew);
  writeCode(b, o, lw, n + 1);
  return true;
}

/** Removes `m` from the network's own bytes. False when `m` is not a packed message of this layout. */
export function removeInPlace(netValue: unknown, m: unknown): boolean {
  const net = netValue as NetView;
  if (!isElement(net, m)) return false;
  const { lw, ew } = net._t;
  const b = net._b;
  const o = net._o;
  const n = net._t.size(b, o);
  const i = search(b, o + lw, n, ew, m._b, m._o);
  if (i >= 0) removeSlot(net, i);
  return true;
}

/**
 * Removes from the network's own bytes the messages `lost` holds for. Each is read afresh from its slot,
 * from the last slot down, so a removal moves no slot still to be read.
 */
export function removeInPlaceWhere<M>(netValue: unknown, lost: (m: M) => boolean): void {
  const net = netValue as NetView;
  const t = net._t;
  for (let i = t.size(net._b, net._o) - 1; i >= 0; i--) {
    if (lost(t.elem.read(net._b, net._o + t.lw + i * t.ew, net, '[]') as M)) removeSlot(net, i);
  }
}

/** Removes slot `i` of the network's own bytes, shifting the later slots down and zeroing the last. */
function removeSlot(net: NetView, i: number): void {
  const { lw, ew } = net._t;
  const b = net._b;
  const o = net._o;
  const n = net._t.size(b, o);
  const base = o + lw;
  b.copyWithin(base + i * ew, base + (i + 1) * ew, base + n * ew);
  b.fill(0, base + (n - 1) * ew, base + n * ew);
  writeCode(b, o, lw, n - 1);
}
