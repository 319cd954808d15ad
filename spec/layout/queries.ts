/**
 * The read-only queries of Immutable.js collections that packed views answer by handing their own
 * elements to an Immutable.js collection of the same kind: min, max, minBy, maxBy, sort, sortBy, groupBy,
 * join, toList, toSet. Going through Immutable.js itself keeps every answer (ties, order, the kind of
 * collection returned) exactly what the same spec written over Immutable.js gets; the elements stay views.
 * The queries that keep a layout (filter, set, push, ...) are the views' own.
 */
import type * as Immutable from 'immutable';

type Comparator<T> = (a: T, b: T) => number;

/** The queries, typed for a collection of values `V` under keys `K` of kind `C` (List, Set or Map). */
export interface CollectionQueries<K, V, C> {
  min(comparator?: Comparator<V>): V | undefined;
  max(comparator?: Comparator<V>): V | undefined;
  minBy<C2>(mapper: (v: V, k: K) => C2, comparator?: Comparator<C2>): V | undefined;
  maxBy<C2>(mapper: (v: V, k: K) => C2, comparator?: Comparator<C2>): V | undefined;
  /** A sorted copy as Immutable.js sorts: a List for a list or bag, an OrderedSet for a set, an OrderedMap for a map. */
  sort(comparator?: Comparator<V>): C;
  sortBy<C2>(mapper: (v: V, k: K) => C2, comparator?: Comparator<C2>): C;
  /** Immutable.js's groupBy: groups of the same kind of collection, keyed by `grouper`'s value. */
  groupBy<G>(grouper: (v: V, k: K) => G): Immutable.Map<G, C>;
  join(separator?: string): string;
  toList(): Immutable.List<V>;
  toSet(): Immutable.Set<V>;
}

const QUERIES = ['min', 'max', 'minBy', 'maxBy', 'sort', 'sortBy', 'groupBy', 'join', 'toList', 'toSet'] as const;

/**
 * Gives `cls` the queries, each answered by `asImmutable(view)` (an Immutable.js collection of the view's
 * elements). A class that already defines one keeps its own.
 */
export function installQueries(cls: { prototype: object }, asImmutable: (view: never) => unknown): void {
  for (const name of QUERIES) {
    if (Object.prototype.hasOwnProperty.call(cls.prototype, name)) continue;
    Object.defineProperty(cls.prototype, name, {
      value: function (this: never, ...args: unknown[]) {
        const c = asImmutable(this) as Record<string, (...a: unknown[]) => unknown>;
        return c[name]!(...args);
      },
      writable: true,
      configurable: true,
    });
  }
}
