/**
 * The error of a value outside its layout: the layout is the spec's type declaration (TLA+ `TypeOK`),
 * so writing such a value is a spec error, reported with the field path, the value and the bound.
 */
export class LayoutError extends Error {
  constructor(
    /** Where the value was written, from the state's root: `replicas.r2.epoch`, `msgs[]`. */
    readonly path: string,
    readonly value: unknown,
    /** What the layout allows there: `at most 3`, `one of working, prepared`, `at most 8 elements`. */
    readonly bound: string,
  ) {
    super(`${path === '' ? 'the value' : path}: ${describeValue(value)} is out of bounds (${bound})`);
    this.name = 'LayoutError';
  }

  /** The same error one level further from the root (errors are raised deep and named on the way out). */
  under(segment: string): LayoutError {
    return new LayoutError(joinPath(segment, this.path), this.value, this.bound);
  }
}

export function joinPath(parent: string, child: string): string {
  if (parent === '') return child;
  if (child === '') return parent;
  return child.startsWith('[') ? `${parent}${child}` : `${parent}.${child}`;
}

function describeValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'object' && v !== null) {
    const s = (v as { toString(): string }).toString();
    try {
      return s === '[object Object]' ? JSON.stringify(v) : s;
    } catch {
      return s;
    }
  }
  return String(v);
}
