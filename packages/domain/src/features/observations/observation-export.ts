import { storedFromRow, type Executor, type ObservationDoc } from "@meridian/db";
import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { observationConditions, observationOrder, type ObservationFilter } from "./observation-query";
import { presentObservations } from "./timings";
import type { Observation } from "./schemas";

/** Rows fetched from the database cursor at a time, and written out as one chunk. */
const BATCH_ROWS = 1000;

/** Each id beside the name a person knows it by; the targets' coordinates beside their names, in the same order. */
const CSV_COLUMNS = [
  "id",
  "name",
  "type",
  "status",
  "statusReason",
  "priority",
  "targets",
  "targetRaDegrees",
  "targetDecDegrees",
  "projectId",
  "projectName",
  "observatoryId",
  "observatoryName",
  "ownerId",
  "ownerName",
  "fixedTimeStart",
  "fixedTimeEnd",
  "statusChangedAt",
  "createdAt",
  "updatedAt",
] as const;
type CsvColumn = (typeof CSV_COLUMNS)[number];

/** The names of a batch's projects, observatories (removed ones too) and owners, by id. */
type Names = Map<string, string>;

/**
 * One CSV field (RFC 4180). Text that a spreadsheet would run as a formula (it starts with = + - @,
 * or a tab or carriage return that some read past) gets a leading apostrophe, so opening an export
 * never runs what someone typed as an observation's or a target's name.
 */
export function csvField(value: string | number | number[] | null): string {
  if (value === null) return "";
  if (typeof value === "number") return String(value);
  // Numbers only (a minus sign, digits, a point): nothing a spreadsheet would run, so no apostrophe before a negative one.
  if (Array.isArray(value)) return value.join("; ");
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csvValue(observation: Observation, column: CsvColumn, names: Names): string | number | number[] | null {
  const { targets } = observation;
  switch (column) {
    case "targets":
      return targets.map((target) => target.name).join("; ");
    case "targetRaDegrees":
      return targets.map((target) => target.ra);
    case "targetDecDegrees":
      return targets.map((target) => target.dec);
    case "projectName":
      return names.get(observation.projectId) ?? null;
    case "observatoryName":
      // One with candidates that waits runs at none yet: the names of those it may run at.
      if (observation.observatoryId === null) return observation.candidateObservatoryIds.flatMap((id) => names.get(id) ?? []).join("; ") || null;
      return names.get(observation.observatoryId) ?? null;
    case "ownerName":
      return names.get(observation.ownerId) ?? null;
    default:
      return observation[column];
  }
}

const csvRecord = (observation: Observation, names: Names) => `${CSV_COLUMNS.map((column) => csvField(csvValue(observation, column, names))).join(",")}\r\n`;

/** One query for the names a batch's rows show (ids are prefixed by kind, so one map holds them all). */
async function namesOf(db: Executor, observations: Observation[]): Promise<Names> {
  const ids = (pick: (observation: Observation) => string[]) => [...new Set(observations.flatMap(pick))];
  const [projects, observatories, owners] = [ids((o) => [o.projectId]), ids((o) => o.candidateObservatoryIds), ids((o) => [o.ownerId])];
  if (observations.length === 0) return new Map();
  const rows = await db.execute<{ id: string; name: string | null }>(sql`
    select id, doc->>'name' as name from projects where id in ${projects}
    union all select id, doc->>'name' from observatories where id in ${observatories}
    union all select id, doc->>'name' from users where id in ${owners}`);
  return new Map(rows.flatMap((row) => (row.name === null ? [] : [[row.id, row.name] as const])));
}

/**
 * Every observation the caller may read that matches the filter, in the list's order, as CSV (a
 * header row, then a record per observation) or a JSON array of the API's `observation`: read
 * through a database cursor a batch at a time and yielded a batch at a time, so an export of any
 * size streams in constant memory. Ending the generator early (`return()`, the client gone)
 * closes the cursor and gives its connection back.
 */
export async function* exportObservations(options: { deps: Deps; actor: UserActor; filter: ObservationFilter; format: "csv" | "json" }) {
  const { deps, actor, filter, format } = options;
  const order = observationOrder(filter.sort);
  // The comment names the query in pg_stat_activity.
  const query = new PgDialect().sqlToQuery(sql`/* observation export */
    select o.id, o.doc, o.created_at, o.updated_at from observations o
     where ${sql.join(observationConditions({ actor, filter }), sql` and `)}
     order by ${order.orderBy}`);
  const rows = deps.sql.unsafe<Array<{ id: string; doc: ObservationDoc; created_at: string | Date; updated_at: string | Date }>>(
    query.sql,
    query.params as never[],
  );
  let chunk = format === "csv" ? `${CSV_COLUMNS.join(",")}\r\n` : "[";
  let first = true;
  // The header goes out with the first batch, so a query that fails does so before any byte is sent.
  for await (const batch of rows.cursor(BATCH_ROWS)) {
    const presented = await presentObservations({
      db: deps.db,
      observations: batch.map(storedFromRow),
    });
    const names = format === "csv" ? await namesOf(deps.db, presented) : new Map<string, string>();
    for (const observation of presented) {
      if (format === "csv") chunk += csvRecord(observation, names);
      else {
        chunk += `${first ? "" : ","}\n${JSON.stringify(observation)}`;
        first = false;
      }
    }
    yield chunk;
    chunk = "";
  }
  yield format === "json" ? `${chunk}\n]\n` : chunk;
}
