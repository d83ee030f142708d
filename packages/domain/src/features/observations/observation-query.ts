import { observationStatuses } from "@meridian/rules";
import { isoDateInput, isoDay } from "@meridian/rules/fields";
import { sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { UserActor } from "../../platform/actor";
import { viewableObservatoryIds } from "../permissions";
import { opaqueIdSchema, withoutControlCharacters } from "../users";
import { instantKey, keysetCursor } from "../../platform/validation/keyset-cursor";
import { readableBy } from "./access";

export const observationSorts = ["createdAt", "-createdAt", "priority", "-priority", "statusChangedAt", "-statusChangedAt"] as const;
export type ObservationSort = (typeof observationSorts)[number];

const instantSchema = z.union([isoDateInput, isoDay]);

/** The list's and the export's filters, as the query string gives them (REST and tRPC alike). */
export const observationFilterFields = {
  projectId: opaqueIdSchema.optional(),
  observatoryId: opaqueIdSchema.optional().describe("Those that run there and those with it among their candidateObservatoryIds"),
  status: z
    .string()
    .max(500)
    .transform((value) => [...new Set(value.split(",").map((part) => part.trim()))])
    .pipe(z.array(z.enum(observationStatuses)).min(1))
    .optional()
    .describe("One status, or several separated by commas (any of them)"),
  q: withoutControlCharacters(z.string().trim().max(200)).optional().describe("Part of the name or of a target's name, in any case"),
  from: instantSchema.optional().describe("Created at or after (a date means its start, UTC)"),
  to: instantSchema.optional().describe("Created before (a date means its start, UTC: `to=2026-12-01` ends with November)"),
  ownerId: opaqueIdSchema.optional(),
  sort: z.enum(observationSorts).optional().describe("A field, `-` before it for descending; ties go by id the same way. Default `-createdAt`"),
};
export type ObservationFilter = z.output<z.ZodObject<typeof observationFilterFields>>;

/** The `where` of a list or an export: what the caller may read (as the plain list always did), then each filter given. */
export function observationConditions({ actor, filter }: { actor: UserActor; filter: ObservationFilter }): SQL[] {
  const conditions = [actor.isServerAdmin ? sql`true` : readableBy({ userId: actor.id, viewableObservatories: viewableObservatoryIds(actor.id) })];
  if (filter.projectId) conditions.push(sql`o.project_id = ${filter.projectId}`);
  // Those that run there and those that may: its candidates hold the observatory it runs at.
  if (filter.observatoryId) conditions.push(sql`o.candidate_observatory_ids @> array[${filter.observatoryId}]::text[]`);
  if (filter.status) conditions.push(sql`o.status in ${filter.status}`);
  if (filter.ownerId) conditions.push(sql`o.owner_id = ${filter.ownerId}`);
  if (filter.from) conditions.push(sql`o.created_at >= ${new Date(filter.from).toISOString()}::timestamptz`);
  if (filter.to) conditions.push(sql`o.created_at < ${new Date(filter.to).toISOString()}::timestamptz`);
  if (filter.q) conditions.push(searchCondition(filter.q));
  return conditions;
}

/**
 * `?q`: a case-insensitive substring of the name or a target's name. The trigram index serves three
 * characters or more; a shorter one is looked up among the row's one- and two-character pieces
 * (`search_grams`), which hold exactly the substrings of that length, so neither reads every row.
 */
function searchCondition(q: string): SQL {
  const substring = sql`o.search_text ilike ${`%${q.replace(/[\\%_]/g, "\\$&")}%`}`;
  return [...q].length < 3 ? sql`(o.search_grams @> array[lower(${q}::text)] and ${substring})` : substring;
}

const sortColumns = { createdAt: sql`o.created_at`, priority: sql`o.priority`, statusChangedAt: sql`o.status_changed_at` };

/** How a sort orders rows, reads the key a cursor holds, and continues after one. */
export function observationOrder(sort: ObservationSort = "-createdAt") {
  const descending = sort.startsWith("-");
  const field = sort.replace("-", "") as keyof typeof sortColumns;
  const column = sortColumns[field];
  const direction = descending ? sql`desc` : sql`asc`;
  // Named by its sort: a cursor another sort gave is refused, not read as a place in this one.
  const position = keysetCursor({ list: sort, parts: [field === "priority" ? "integer" : "instant", "id"] });
  return {
    orderBy: sql`${column} ${direction}, o.id ${direction}`,
    /** The sort key as text, selected `as sort_key` beside the row for its cursor. */
    key: field === "priority" ? sql`o.priority::text` : instantKey(column),
    after(cursor: string): SQL {
      const [key, id] = position.decode(cursor);
      const value = field === "priority" ? sql`${Number(key)}::int` : sql`${key}::timestamptz`;
      return descending ? sql`(${column}, o.id) < (${value}, ${id})` : sql`(${column}, o.id) > (${value}, ${id})`;
    },
    cursor: (row: { sort_key: string; id: string }) => position.encode(row.sort_key, row.id),
  };
}
