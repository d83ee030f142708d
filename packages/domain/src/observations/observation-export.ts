import { storedFromRow, type ObservationDoc } from "@meridian/db";
import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { UserActor } from "../actor";
import type { Deps } from "../deps";
import { observationConditions, observationOrder, type ObservationFilter } from "./observation-query";
import { presentObservations } from "./timings";
import type { Observation } from "./schemas";

/** Rows fetched from the database cursor at a time, and written out as one chunk. */
const BATCH_ROWS = 1000;

const CSV_COLUMNS = [
  "id",
  "name",
  "type",
  "status",
  "statusReason",
  "priority",
  "targets",
  "projectId",
  "observatoryId",
  "ownerId",
  "fixedTimeStart",
  "fixedTimeEnd",
  "statusChangedAt",
  "createdAt",
  "updatedAt",
] as const;

/**
 * One CSV field (RFC 4180). Text that a spreadsheet would run as a formula (it starts with = + - @,
 * or a tab or carriage return that some read past) gets a leading apostrophe, so opening an export
 * never runs what someone typed as an observation's or a target's name.
 */
export function csvField(value: string | number | null): string {
  if (value === null) return "";
  if (typeof value === "number") return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const csvRecord = (observation: Observation) =>
  `${CSV_COLUMNS.map((column) => csvField(column === "targets" ? observation.targets.map((target) => target.name).join("; ") : observation[column])).join(
    ",",
  )}\r\n`;

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
    for (const observation of presented) {
      if (format === "csv") chunk += csvRecord(observation);
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
