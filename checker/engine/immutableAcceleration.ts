/**
 * What the checker changes in Immutable.js, once per thread, before it reads a spec's states: Records
 * compared and hashed from their fingerprints (recordAcceleration.ts), Maps and Sets that remember the
 * one edit they were made by (collectionEdits.ts). Immutable.js's answers are the same either way.
 */
import { accelerateRecords } from './recordAcceleration.ts';
import { trackCollectionEdits } from './collectionEdits.ts';

export function accelerateImmutable(): void {
  accelerateRecords();
  trackCollectionEdits();
}
