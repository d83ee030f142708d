import { z } from "zod";
import { AppError } from "../../platform/errors";
import { targetCatalogs, targetKinds } from "./catalog-format";
import { bestWithPrefix, catalogIndex, type NameHit } from "./catalog-index";
import { nameKey } from "./names";

/** Longest name or query a caller may send: the longest name in the catalog is under 40 characters. */
const TARGET_QUERY_MAX = 100;
const TARGET_SEARCH_LIMIT = 20;

const queryText = z.string().trim().min(1).max(TARGET_QUERY_MAX);

export const targetResolveQuerySchema = z.object({ name: queryText });
export const targetSearchQuerySchema = z.object({ q: queryText });

export const targetMatchSchema = z
  .object({
    name: z.string().describe("The catalog's spelling of the name that matched: `m 31` gives `M31`, `orion nebula` gives `Orion Nebula`"),
    designation: z.string().describe("The object's primary designation: its Messier number, else NGC, else IC, else its proper or catalog name"),
    aliases: z.array(z.string()).describe("The object's other names (cross-identifications, common names)"),
    ra: z.number().min(0).lt(360).describe("Right ascension in degrees, J2000"),
    dec: z.number().min(-90).max(90).describe("Declination in degrees, J2000"),
    epoch: z.literal("J2000"),
    kind: z.enum(targetKinds),
    catalog: z.enum(targetCatalogs).describe("The catalog of the designation"),
  })
  .meta({ id: "TargetMatch" });
export type TargetMatch = z.infer<typeof targetMatchSchema>;

export const targetSearchResultSchema = z.object({ items: z.array(targetMatchSchema).max(TARGET_SEARCH_LIMIT) }).meta({ id: "TargetSearchResult" });

function present(hit: NameHit): TargetMatch {
  const { object } = hit;
  return {
    name: object.names[hit.name]!,
    designation: object.designation,
    aliases: object.names.slice(1),
    ra: object.ra,
    dec: object.dec,
    epoch: "J2000",
    kind: object.kind,
    catalog: object.catalog,
  };
}

/**
 * One object by any of its names, compared without case, spaces, punctuation or leading zeros
 * (`m 31`, `Messier 31`, `NGC0224`, `andromeda galaxy`); 404 TARGET_NOT_FOUND otherwise.
 */
export function resolveTarget(options: { name: string }): TargetMatch {
  const hit = catalogIndex().byKey.get(nameKey(options.name));
  if (!hit) throw new AppError("TARGET_NOT_FOUND", `No object named “${options.name.trim()}” in the catalog.`);
  return present(hit);
}

/**
 * Up to 20 objects for autocomplete, each once under its best-matching name: an exact name first,
 * then names that start with the query, then names with a later word that does (`nebula` finds
 * `Orion Nebula`); within each, Messier before NGC before IC before the rest, shorter names first.
 */
export function searchTargets(options: { q: string; limit?: number }): { items: TargetMatch[] } {
  const limit = Math.min(options.limit ?? TARGET_SEARCH_LIMIT, TARGET_SEARCH_LIMIT);
  const key = nameKey(options.q);
  if (key === "") return { items: [] };
  const index = catalogIndex();
  const hits: NameHit[] = [];
  const taken = new Set<number>();
  const exact = index.byKey.get(key);
  if (exact) {
    hits.push(exact);
    taken.add(exact.objectIndex);
  }
  for (const list of [index.wholeNames, index.laterWords]) {
    if (hits.length >= limit) break;
    for (const candidate of bestWithPrefix({ list, prefix: key, limit: limit - hits.length, taken })) {
      taken.add(candidate.object);
      hits.push({ object: index.objects[candidate.object]!, objectIndex: candidate.object, name: candidate.name });
    }
  }
  return { items: hits.map(present) };
}
