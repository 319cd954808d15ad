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
import type { RecordInternals } from '../../spec/recordClasses.ts';

const HASH = '__kmcHashCode';

let installed = false;

export function accelerateRecords(): void {
  if (installed) return;
  installed = true;
  const proto = Record.prototype as unknown as {
    equals(this: object, other: unknown): boolean;
    hashCode(this: object): number;
    get(this: RecordInternals, k: string, notSetValue?: unknown): unknown;
    has(this: RecordInternals, k: string): boolean;
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

  // A field read (`r.term`, `r.get('term')`) is most of what a guard does. Immutable's goes through `has`,
  // `hasOwnProperty` and the List of values' `get`; a Record of up to 32 fields keeps its values in the
  // List's one tail node, read here directly. Same answers: a name that is not a field gives notSetValue
  // (its index is not a number), a value not set gives the default.
  proto.get = function get(this: RecordInternals, k: string, notSetValue?: unknown): unknown {
    const index = this._indices[k];
    if (typeof index !== 'number') return notSetValue;
    const values = this._values;
    const tail = values._tail;
    const value = values._origin === 0 && values._capacity <= 32 && tail != null ? tail.array[index] : values.get(index);
    return value === undefined ? this._defaultValues[k] : value;
  };
  proto.has = function has(this: RecordInternals, k: string): boolean {
    return typeof this._indices[k] === 'number';
  };

  proto.hashCode = function hashCode(this: object): number {
    const cached = (this as { [HASH]?: number })[HASH];
    if (typeof cached === 'number') return cached;
    const h = originalHashCode.call(this);
    if (!mutable(this)) (this as { [HASH]?: number })[HASH] = h;
    return h;
  };
}
