/**
 * Makes Immutable.js Records cheap to compare and hash, which is most of what a spec's guards do
 * (`msgs.has(someMessageRecord)`). Immutable recomputes a Record's `hashCode()` on every call and
 * compares two Records by building a Seq of each; here both are answered from the Record's cached
 * kmc fingerprint when it can decide, falling back to Immutable's own code otherwise:
 * - `equals`: different fingerprints ⇒ not equal (a fingerprint is a function of `Immutable.is`-equality);
 *   equal fingerprints ⇒ Immutable's comparison, so a collision can never make two Records equal.
 * - `hashCode`: cached per instance (a Record is immutable once built).
 * Installed once per thread when the checker loads; semantics are unchanged.
 */
import { Record } from '../../spec/immutable.ts';
import { Fingerprinter } from './fingerprint.ts';

const HASH = '__kmcHashCode';
let installed = false;

export function accelerateRecords(): void {
  if (installed) return;
  installed = true;
  const proto = Record.prototype as unknown as {
    equals(this: object, other: unknown): boolean;
    hashCode(this: object): number;
  };
  const originalEquals = proto.equals;
  const originalHashCode = proto.hashCode;
  const fp = new Fingerprinter();
  const mutable = (r: object) => (r as { __ownerID?: unknown }).__ownerID !== undefined;

  proto.equals = function equals(this: object, other: unknown): boolean {
    if (this === other) return true;
    if (typeof other !== 'object' || other === null || mutable(this) || mutable(other)) return originalEquals.call(this, other);
    try {
      fp.of(this);
      const hi = fp.hi;
      const lo = fp.lo;
      fp.of(other);
      if (fp.hi !== hi || fp.lo !== lo) return false;
    } catch {
      // A Record holding non-Immutable values: Immutable decides.
    }
    return originalEquals.call(this, other);
  };

  proto.hashCode = function hashCode(this: object): number {
    const cached = (this as { [HASH]?: number })[HASH];
    if (typeof cached === 'number') return cached;
    const h = originalHashCode.call(this);
    if (!mutable(this)) (this as { [HASH]?: number })[HASH] = h;
    return h;
  };
}
