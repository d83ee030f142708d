import { collections } from "@meridian/db";
import { getTableName } from "drizzle-orm";
import type postgres from "postgres";
import type { CollectionName, ScannedDocuments } from "./document-checks";

/** A batch as read: ids and `updated_at` in the scan's thread, the documents for the checks. */
export interface ScannedBatch {
  /** In the database's order, usually by id, which nothing relies on: the columns line up, and the checkpoint is `lastId`. */
  ids: string[];
  /** The batch's greatest id, by the database's collation: where a resumed scan starts. */
  lastId: string | null;
  /**
   * `updated_at` in seconds since 1970 (PostgreSQL's float8 epoch: formatting a million timestamps
   * as text cost the database about two seconds of a full scan); see `updatedAtIso`.
   */
  updatedAt: number[];
  documents: ScannedDocuments;
}

/**
 * A document's `updated_at` as an ISO date to the millisecond, truncated as JavaScript reads the
 * timestamp's text (how a repair reads it back to compare). The float's error is far below half a
 * microsecond, so rounding recovers PostgreSQL's exact microseconds.
 */
export const updatedAtIso = (epochSeconds: number) => new Date(Math.floor(Math.round(epochSeconds * 1e6) / 1000)).toISOString();

export interface BatchReader {
  /** The next batch in id order, or null after the last. */
  next(): Promise<ScannedBatch | null>;
}

/**
 * Reads a collection in id order, in batches of `size`, up to `limit` documents after `afterId` and
 * up to `untilId` (the last id when the scan counted the collection: documents written since are not
 * in its total, so they are not read either), with `ahead` batches being read at once. Where each batch ends is found first (an index-only
 * step of `size` ids), so the batches' documents, and an observation batch's history beside them,
 * are read on several connections at once: one connection reading in turn left the database
 * waiting on the round trips and the scan waiting on the database.
 */
export function batchReader(options: {
  sql: postgres.Sql;
  name: CollectionName;
  afterId: string | null;
  untilId: string;
  limit: number;
  size: number;
  ahead: number;
}): BatchReader {
  const { sql, name, afterId, untilId, limit, size, ahead } = options;
  const table = sql(getTableName(collections[name].table));
  const reads: Array<Promise<ScannedBatch | null>> = [];
  let planned = 0;
  // Where the last planned batch ends: undefined once a batch reached the collection's end.
  let lastEnd: Promise<string | null | undefined> = Promise.resolve(afterId);

  const plan = () => {
    const previousEnd = lastEnd;
    const count = Math.min(size, limit - planned);
    planned += count;
    const range = previousEnd.then(async (from): Promise<{ from: string | null; to: string | null } | null> => {
      if (from === undefined || count <= 0) return null;
      const after = from === null ? sql`` : sql`and t.id > ${from}`;
      const [row] = await sql<Array<{ id: string }>>`select t.id from ${table} t where t.id <= ${untilId} ${after} order by t.id offset ${count - 1} limit 1`;
      return { from, to: row?.id ?? null };
    });
    lastEnd = range.then((found) => found?.to ?? undefined);
    const read = range.then((found) => (found ? batchOf(sql, name, found.from, found.to ?? untilId, found.to === null ? count : null) : null));
    // Awaited in turn by next(); kept from being an unhandled rejection until then.
    lastEnd.catch(() => undefined);
    read.catch(() => undefined);
    reads.push(read);
  };

  return {
    async next() {
      for (;;) {
        while (reads.length < ahead) plan();
        const batch = await reads.shift()!;
        // A range emptied since its end was found is skipped.
        if (batch === null || batch.ids.length > 0) return batch;
      }
    },
  };
}

/**
 * One batch: the documents after `from` up to and including `to` (at most `count` of them when it is given:
 * the collection's last batch, which ends at the scan's last id rather than at a document of its own), aggregated by the database into one row (without an
 * order inside the aggregates, which PostgreSQL before 16 would sort for again): the ids and
 * `updated_at` epochs as JSON arrays, and the documents' JSON text, one per line (jsonb's text
 * never holds a raw line break), which goes to a check thread undecoded. One row instead of one
 * per document spares the scan's thread a buffer and a string per column per document.
 * Observations come with their history, in order, read in one range scan of the history's index
 * for the whole batch (a subquery per observation cost the database a third more than the
 * documents themselves).
 */
async function batchOf(sql: postgres.Sql, name: CollectionName, from: string | null, to: string, count: number | null): Promise<ScannedBatch> {
  const table = sql(getTableName(collections[name].table));
  const lower = from === null ? sql`true` : sql`t.id > ${from}`;
  const upper = sql`and t.id <= ${to}`;
  const rest = count === null ? sql`` : sql`limit ${count}`;
  const reading = sql`
    select coalesce(json_agg(s.id), '[]')::text, coalesce(json_agg(date_part('epoch', s.updated_at)), '[]')::text,
           coalesce(string_agg(s.doc, chr(10)), ''), max(s.id)
      from (select t.id, t.doc::text as doc, t.updated_at from ${table} t where ${lower} ${upper} order by t.id ${rest}) s`.raw();
  // With both ends known, the history is read at the same time as the documents.
  const readingHistory = name === "observations" && count === null ? historyBetween(sql, from, to) : null;
  readingHistory?.catch(() => undefined);
  const [idsJson, updatedJson, lines, last] = ((await reading) as unknown as Array<[Buffer, Buffer, Buffer, Buffer | null]>)[0]!;
  const ids = JSON.parse(idsJson.toString()) as string[];
  // Its own memory, not a slice of the driver's buffer, so that it can be transferred to a thread.
  const text = Buffer.allocUnsafeSlow(lines.length);
  lines.copy(text);
  const lastId = last?.toString() ?? null;
  const batch: ScannedBatch = { ids, lastId, updatedAt: JSON.parse(updatedJson.toString()) as number[], documents: { ids, text, history: null } };
  if (name !== "observations" || lastId === null) return batch;
  const entries = await (readingHistory ?? historyBetween(sql, from, lastId));
  const historyOf = new Map<string, string[]>();
  for (const entry of entries) {
    const list = historyOf.get(entry.observation_id);
    if (list) list.push(entry.doc);
    else historyOf.set(entry.observation_id, [entry.doc]);
  }
  batch.documents.history = ids.map((id) => historyOf.get(id) ?? null);
  return batch;
}

function historyBetween(sql: postgres.Sql, from: string | null, to: string) {
  const lower = from === null ? sql`true` : sql`observation_id > ${from}`;
  return sql<Array<{ observation_id: string; doc: string }>>`
    select observation_id, doc::text as doc from observation_history
     where ${lower} and observation_id <= ${to}
     order by observation_id, created_at, id`;
}
