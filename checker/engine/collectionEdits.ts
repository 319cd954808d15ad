/**
 * Remembers, on a Map or Set made by one `set`, `add` or `remove` from a collection the fingerprint has
 * already hashed, where it came from and which key changed, so its fingerprint is the parent's updated by
 * that one entry (fingerprint.ts, `edited`) instead of a walk over every entry. A spec's step mostly
 * touches one entry of a collection (a message added to the network, one replica's state changed): on a
 * set of 20 messages that is one entry hashed instead of 20.
 *
 * Installed once per thread when the checker loads (immutableAcceleration.ts); Immutable.js's answers are
 * unchanged: the edit is made by Immutable.js's own method, and three properties are added to its result.
 */
import { Map as IMap, Set as ISet } from '../../spec/immutable.ts';
import { EDITED_FROM, EDITED_KEY, EDITED_VALUE, REMOVED, isHashed, isUnorderedCollection } from './fingerprint.ts';

type Edit = (this: object, key: unknown, value?: unknown) => object;
type Edited = { [EDITED_FROM]?: object; [EDITED_KEY]?: unknown; [EDITED_VALUE]?: unknown };

/**
 * Smaller collections are hashed whole: remembering costs about what it saves there (measured: hashing a
 * Set or Map of records after one edit, whole against updated, 1.3× at 8 entries, 2.7× at 16, 4.3× at 32,
 * 7.5× at 64; kraft-bench over Immutable.js, whose collections are mostly under 8 entries, was 14 % slower
 * with every edit remembered, and the same from 8 on).
 */
const REMEMBERED_FROM_SIZE = 8;

let installed = false;

export function trackCollectionEdits(): void {
  if (installed) return;
  installed = true;
  const map = IMap.prototype as unknown as Record<string, Edit>;
  const set = ISet.prototype as unknown as Record<string, Edit>;
  const setInMap = map['set']!;
  const removeFromMap = map['remove']!;
  const addToSet = set['add']!;
  const removeFromSet = set['remove']!;
  map['set'] = function (this: object, key: unknown, value: unknown): object {
    return remember(this, setInMap.call(this, key, value), key, value);
  };
  // `delete` and `remove` are one method of two names; each name gets the tracked one.
  map['remove'] = map['delete'] = function (this: object, key: unknown): object {
    return remember(this, removeFromMap.call(this, key), key, REMOVED);
  };
  set['add'] = function (this: object, value: unknown): object {
    return remember(this, addToSet.call(this, value), value, value);
  };
  set['remove'] = set['delete'] = function (this: object, value: unknown): object {
    return remember(this, removeFromSet.call(this, value), value, REMOVED);
  };
}

/**
 * A collection being mutated (withMutations) gives back itself, and an unchanged one too: nothing to
 * remember. An ordered one (OrderedSet's `add` is Set's) is hashed in order, not as a sum: nothing
 * either. A parent edited and not hashed yet is remembered too (`s.add(a).add(b)`): the fingerprint
 * follows a few edits back.
 */
function remember(from: object, made: object, key: unknown, value: unknown): object {
  if (made !== from && (made as { size: number }).size >= REMEMBERED_FROM_SIZE && (isHashed(from) || (from as Edited)[EDITED_FROM] !== undefined) && isUnorderedCollection(made)) {
    const edited = made as Edited;
    edited[EDITED_FROM] = from;
    edited[EDITED_KEY] = key;
    edited[EDITED_VALUE] = value;
  }
  return made;
}
