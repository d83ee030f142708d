import fs from "node:fs";
import { catalogFileSchema, targetCatalogs, type TargetCatalog, type TargetKind } from "./catalog-format";
import { nameKey, wordKeys } from "./names";

/**
 * The target catalog in memory, built once at first use (about 17,000 objects): a map from each
 * name's key to its object for resolving, and two lists of keys sorted for prefix search (whole
 * names, and names from each later word on), each entry with a precomputed rank so a search only
 * compares numbers.
 */

export interface CatalogObject {
  designation: string;
  catalog: TargetCatalog;
  kind: TargetKind;
  ra: number;
  dec: number;
  /** The designation first, then the aliases. */
  names: string[];
}

export interface NameHit {
  object: CatalogObject;
  /** The object's position in the catalog. */
  objectIndex: number;
  /** Which of the object's names: 0 is the designation. */
  name: number;
}

interface SortedKeys {
  keys: string[];
  objects: Int32Array;
  names: Int32Array;
  /** Smaller is better: catalog order (Messier, NGC, IC, ...), then shorter names, then alphabetical. */
  ranks: Int32Array;
}

export interface CatalogIndex {
  objects: CatalogObject[];
  byKey: Map<string, NameHit>;
  wholeNames: SortedKeys;
  laterWords: SortedKeys;
}

const CATALOG_FILE = new URL("./catalog.json", import.meta.url);

function sortedKeys(entries: Array<{ key: string; object: number; name: number; rank: number }>): SortedKeys {
  entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.rank - b.rank));
  return {
    keys: entries.map((entry) => entry.key),
    objects: Int32Array.from(entries, (entry) => entry.object),
    names: Int32Array.from(entries, (entry) => entry.name),
    ranks: Int32Array.from(entries, (entry) => entry.rank),
  };
}

/** Builds the index from the catalog file's text (the committed file unless a test gives another). */
function buildCatalogIndex(text: string): CatalogIndex {
  const file = catalogFileSchema.parse(JSON.parse(text));
  const objects: CatalogObject[] = file.objects.map(([designation, catalog, kind, ra, dec, aliases]) => ({
    designation,
    catalog,
    kind,
    ra,
    dec,
    names: [designation, ...aliases],
  }));
  const byKey = new Map<string, NameHit>();
  const all: Array<{ key: string; object: number; name: number; whole: boolean; order: number }> = [];
  objects.forEach((object, objectIndex) => {
    const order = targetCatalogs.indexOf(object.catalog);
    object.names.forEach((name, nameIndex) => {
      const key = nameKey(name);
      // The builder gives every key to one object; the first claim stands should a hand edit slip through.
      if (!byKey.has(key)) byKey.set(key, { object, objectIndex, name: nameIndex });
      all.push({ key, object: objectIndex, name: nameIndex, whole: true, order });
      for (const word of wordKeys(name)) all.push({ key: word, object: objectIndex, name: nameIndex, whole: false, order });
    });
  });
  const ranked = all
    .map((entry, position) => ({ ...entry, position }))
    .sort((a, b) => a.order - b.order || a.key.length - b.key.length || (a.key < b.key ? -1 : a.key > b.key ? 1 : a.position - b.position));
  const withRanks = ranked.map((entry, rank) => ({ key: entry.key, object: entry.object, name: entry.name, rank, whole: entry.whole }));
  return {
    objects,
    byKey,
    wholeNames: sortedKeys(withRanks.filter((entry) => entry.whole)),
    laterWords: sortedKeys(withRanks.filter((entry) => !entry.whole)),
  };
}

let index: CatalogIndex | undefined;

/** The committed catalog's index, built at the first call and kept for the life of the process. */
export function catalogIndex(): CatalogIndex {
  index ??= buildCatalogIndex(fs.readFileSync(CATALOG_FILE, "utf8"));
  return index;
}

function lowerBound(keys: string[], key: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keys[middle]! < key) low = middle + 1;
    else high = middle;
  }
  return low;
}

interface Candidate {
  rank: number;
  object: number;
  name: number;
}

/**
 * The `limit` best-ranked objects among keys starting with `prefix`, one hit per object (its best
 * name), leaving out objects already taken. One pass over the matching range; the kept list is at
 * most `limit` long, so each step is a few comparisons.
 */
export function bestWithPrefix({ list, prefix, limit, taken }: { list: SortedKeys; prefix: string; limit: number; taken: Set<number> }): Candidate[] {
  const best: Candidate[] = [];
  for (let i = lowerBound(list.keys, prefix); i < list.keys.length && list.keys[i]!.startsWith(prefix); i += 1) {
    const rank = list.ranks[i]!;
    if (best.length === limit && rank >= best[limit - 1]!.rank) continue;
    const object = list.objects[i]!;
    if (taken.has(object)) continue;
    const existing = best.findIndex((candidate) => candidate.object === object);
    if (existing !== -1) {
      if (best[existing]!.rank <= rank) continue;
      best.splice(existing, 1);
    }
    let position = best.length;
    while (position > 0 && best[position - 1]!.rank > rank) position -= 1;
    best.splice(position, 0, { rank, object, name: list.names[i]! });
    if (best.length > limit) best.pop();
  }
  return best;
}
