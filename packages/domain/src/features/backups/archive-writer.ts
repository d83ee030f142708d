import type postgres from "postgres";
import { SERVER_VERSION } from "@meridian/config";
import { schemaVersion, type BackupManifestV2, type BackupPart } from "@meridian/db";
import type { Deps } from "../../platform/deps";
import { JobEnded } from "../../platform/jobs/tracked-jobs";
import { ARCHIVED_COLLECTIONS, backupPrefixOf, deleteBackupObjects } from "./archive-io";
import { BACKUP_READERS, runReaders } from "./archive-readers";
import type { SectionHeader } from "./archive-format";
import type { BlockRange, SectionPlan, ThreadConnection } from "./archive-thread-protocol";

/** A collection whose heap is at least this large is read as block ranges, at least one per reader. */
const SPLIT_HEAP_BYTES = 1024 * 1024;
/** About how much heap one range covers: small enough that the readers finish close together, large enough to be few. */
const PART_HEAP_BYTES = 128 * 1024 * 1024;

/**
 * The reader threads' connection: the same server, database and role as this process's, with the
 * backups' own statement_timeout (BACKUP_STATEMENT_TIMEOUT_MS): copying a large table is one statement.
 */
function threadConnection(sql: postgres.Sql, statementTimeoutMs: number): ThreadConnection {
  const { host, port, path, database, user, pass, ssl, connection } = sql.options;
  if (typeof pass === "function") throw new Error("the backup's reader threads need the database password as text");
  return {
    host: host.map((name, index) => `${name}:${port[index]}`).join(","),
    path: path || undefined,
    database,
    user,
    pass: pass ?? undefined,
    ssl,
    connection: { ...(connection as ThreadConnection["connection"]), statement_timeout: statementTimeoutMs },
  };
}

/**
 * The block ranges a large heap is cut into: a multiple of `readers` ranges of about
 * PART_HEAP_BYTES, the last `readers` of them halved. Readers take ranges from one queue, so
 * equal ranges in a multiple of their number end together, and the halves at the end leave at
 * most half a range to one reader while the others are done (13 equal ranges on two readers had
 * one read the thirteenth alone, a seventh of the backup). The last range is open.
 */
export function blockRanges({ blocks, blockSize, readers }: { blocks: number; blockSize: number; readers: number }): BlockRange[] {
  const whole = Math.max(readers, Math.ceil(Math.ceil((blocks * blockSize) / PART_HEAP_BYTES) / readers) * readers);
  const pieces = [...Array.from({ length: whole - readers }, () => 2), ...Array.from({ length: 2 * readers }, () => 1)];
  const total = pieces.reduce((sum, weight) => sum + weight, 0);
  const ranges: BlockRange[] = [];
  let from = 0;
  let weightBefore = 0;
  for (const weight of pieces) {
    weightBefore += weight;
    const to = weightBefore === total ? null : Math.round((blocks * weightBefore) / total);
    if (to !== null && to <= from) continue;
    ranges.push({ from, to });
    if (to === null) break;
    from = to;
  }
  return ranges;
}

/**
 * The parts to write: first one part with every small collection whole, then each large
 * collection's heap cut into block ranges (blockRanges), one part each. A range's end is where
 * the next begins and the last is open, so rows in blocks added since the sizes were read are
 * still in it; the snapshot decides which rows each range holds.
 */
function planParts(headers: SectionHeader[], heapBlocks: Map<string, number>, blockSize: number, readers: number): SectionPlan[][] {
  const whole: SectionPlan[] = [];
  const ranges: SectionPlan[][] = [];
  for (const header of headers) {
    const blocks = heapBlocks.get(header.collection) ?? 0;
    if (blocks * blockSize < SPLIT_HEAP_BYTES) whole.push(header);
    else for (const range of blockRanges({ blocks, blockSize, readers })) ranges.push([{ ...header, blocks: range }]);
  }
  return whole.length > 0 ? [whole, ...ranges] : ranges;
}

/**
 * Streams every archived collection, as of one repeatable-read snapshot, into the parts of a
 * version 2 archive beside `manifestKey`: reader threads import the snapshot this transaction
 * exports and read parts at once, each through COPY and brotli into an upload of its own (ADR 23).
 * Returns the manifest of what was written; the caller stores it.
 */
export async function writeArchive(options: { deps: Deps; manifestKey: string; onRows: (rows: number) => Promise<void> }): Promise<BackupManifestV2> {
  const { deps, manifestKey, onRows } = options;
  // A retry starts over: the parts of an earlier attempt go, whatever their number was.
  await deleteBackupObjects({ deps, objectKey: manifestKey });
  const prefix = backupPrefixOf(manifestKey);
  // Progress reports go out one at a time, and a late one never overtakes the last. One that finds the job ended (cancelled,
  // or taken for abandoned) stops the readers there; any other failure of a report is only a report lost.
  const ended = new AbortController();
  let reporting = Promise.resolve();
  const report = (rows: number) => {
    reporting = reporting
      .then(() => onRows(rows))
      .catch((error: unknown) => {
        if (error instanceof JobEnded) ended.abort(error);
      });
  };
  try {
    const { snapshotAt, headers, parts } = await writeParts({ deps, prefix, report, signal: ended.signal });
    await reporting;
    // The last report, of every row: one that finds the job ended stops the attempt here too.
    const sections = parts.flatMap((part) => part.sections);
    await onRows(sections.reduce((sum, section) => sum + section.rows, 0));
    return manifestOf(snapshotAt, headers, parts);
  } catch (error) {
    // The ended job's release deleted the backup's objects, perhaps before a part of this attempt landed: every upload has
    // settled now (runReaders waits for them), so what this attempt wrote goes too, before the attempt stops.
    if (error instanceof JobEnded) await deleteBackupObjects({ deps, objectKey: manifestKey });
    throw error;
  } finally {
    await reporting;
  }
}

/** The parts themselves, read by reader threads from one snapshot; stopped (and every upload settled) once `signal` aborts. */
function writeParts(options: { deps: Deps; prefix: string; report: (rows: number) => void; signal: AbortSignal }) {
  const { deps, prefix, report, signal } = options;
  // Not inTransaction: a read-only repeatable-read transaction on postgres.js itself, whose snapshot the readers' connections
  // import (listed as an exception in eslint.config.js).
  return deps.sql.begin("isolation level repeatable read read only", async (tx) => {
    // The backups' own limit, not the pool's: this transaction stays open while the readers copy.
    await tx.unsafe(`set local statement_timeout = ${Number(deps.env.BACKUP_STATEMENT_TIMEOUT_MS)}`);
    // The first statement takes the snapshot the readers read; it is exported for their connections.
    const [clock] = await tx<Array<{ now: Date | string; snapshot: string }>>`select now() as now, pg_export_snapshot() as snapshot`;
    // A generated column (observations.search_text) is made again by the restore's COPY, which refuses one given.
    const columnRows = await tx<Array<{ table_name: string; columns: string[] }>>`
      select table_name::text, array_agg(column_name::text order by ordinal_position) as columns
      from information_schema.columns where table_schema = current_schema() and table_name in ${tx(ARCHIVED_COLLECTIONS)}
        and is_generated = 'NEVER'
      group by table_name`;
    const columnsOf = new Map(columnRows.map((row) => [row.table_name, row.columns]));
    const headers = ARCHIVED_COLLECTIONS.map((collection) => {
      const columns = columnsOf.get(collection);
      if (!columns) throw new Error(`the table ${collection} is missing`);
      return { collection, columns };
    });
    // PostgreSQL's estimate of each heap's blocks (as of its last VACUUM or ANALYZE), because reading it takes no lock: a
    // collection locked by someone else then holds up only its own COPY. Blocks added since fall in the last, open range.
    const sizes = await tx<Array<{ name: string; blocks: number; block_size: number }>>`
      select c.relname::text as name, greatest(c.relpages, 0) as blocks, current_setting('block_size')::int as block_size
      from pg_class c where c.relnamespace = current_schema()::regnamespace and c.relkind = 'r' and c.relname in ${tx(ARCHIVED_COLLECTIONS)}`;
    const plans = planParts(headers, new Map(sizes.map((row) => [row.name, row.blocks])), sizes[0]?.block_size ?? 8192, BACKUP_READERS);
    // The exporting transaction stays open until every reader is done; its snapshot lives as long.
    const parts = await runReaders({
      deps,
      data: { connection: threadConnection(deps.sql, deps.env.BACKUP_STATEMENT_TIMEOUT_MS), snapshot: clock!.snapshot },
      plans,
      keyOf: (index) => `${prefix}part-${String(index + 1).padStart(4, "0")}.br`,
      onRows: report,
      signal,
    });
    return { snapshotAt: new Date(clock!.now).toISOString(), headers, parts };
  });
}

function manifestOf(snapshotAt: string, headers: SectionHeader[], parts: BackupPart[]): BackupManifestV2 {
  const sections = parts.flatMap((part) => part.sections);
  return {
    format: "meridian-backup/2",
    schemaVersion: schemaVersion(),
    serverVersion: SERVER_VERSION,
    snapshotAt,
    compression: "brotli",
    collections: headers.map(({ collection, columns }) => {
      const own = sections.filter((section) => section.name === collection);
      return {
        name: collection,
        columns,
        rows: own.reduce((sum, section) => sum + section.rows, 0),
        bytes: own.reduce((sum, section) => sum + section.bytes, 0),
        sections: own.length,
      };
    }),
    sizeBytes: parts.reduce((sum, part) => sum + part.sizeBytes, 0),
    parts,
  };
}
