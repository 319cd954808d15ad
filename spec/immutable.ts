/**
 * Immutable.js for kmc's own modules, loaded with `require`. Imported as an ES module, Node first scans its
 * CommonJS build (200 KB) for the names it exports, which took several times as long as loading it: most
 * of what a short check spends on Immutable.js before it starts. It is the same module either way (Node
 * keeps one instance of a CommonJS module), so a spec that imports 'immutable' gets these very classes and
 * `is`, `isImmutable` and `instanceof` agree with kmc's.
 */
import { createRequire } from 'node:module';
import type * as Immutable from 'immutable';
import { installRecordClasses } from './recordClasses.ts';

const I = createRequire(import.meta.url)('immutable') as typeof Immutable;
// Before any spec makes a Record class (a spec importing 'immutable' gets this module's exports).
installRecordClasses(I as unknown as Parameters<typeof installRecordClasses>[0]);

export const { List, Map, Set, Record, hash, is, isImmutable, isIndexed, isKeyed, isMap, isOrdered, isRecord } = I;
export type List<T> = Immutable.List<T>;
export type Map<K, V> = Immutable.Map<K, V>;
export type Set<T> = Immutable.Set<T>;
export type Record<TProps extends object> = Immutable.Record<TProps>;
export type RecordOf<TProps extends object> = Immutable.RecordOf<TProps>;
export type RecordFactory<TProps extends object> = Immutable.Record.Factory<TProps>;
