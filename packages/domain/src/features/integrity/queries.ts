import {
  collections,
  integrityIssueDocSchema,
  integrityScanDocSchema,
  integrityIssuesCollection,
  integrityScansCollection,
  integrityIssueTypes,
  integrityScanKinds,
  integrityScanTriggers,
  integritySeverities,
  type IntegrityIssueDoc,
  type Executor,
  type IntegrityScanDoc,
  type StoredDocument,
} from "@meridian/db";
import { sql } from "drizzle-orm";
import { z } from "zod";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { csvField } from "../observations";
import { keysetCursor } from "../../platform/validation/keyset-cursor";

export const integrityScanStartSchema = z
  .strictObject({
    kind: z.enum(integrityScanKinds),
    collections: z.array(z.string().min(1).max(100)).max(50).optional(),
    deepScan: z.boolean().optional(),
    checkStorage: z.boolean().optional(),
    checkHealth: z.boolean().optional(),
    limitPerCollection: z.number().int().positive().max(100_000_000).nullable().optional(),
    includeTestData: z.boolean().optional(),
    verifyChecksums: z
      .boolean()
      .optional()
      .describe("With checkStorage: read every object back and compare its SHA-256 (a separate, rate-limited pass; extension)"),
    checksumBytesPerSecond: z
      .number()
      .int()
      .min(1024 * 1024)
      .max(1024 * 1024 * 1024)
      .optional()
      .describe("The checksum pass's read rate limit; default 32 MiB/s (extension)"),
  })
  .meta({ id: "IntegrityScanStart" });

export const integrityScanSchema = integrityScanDocSchema
  .pick({
    kind: true,
    options: true,
    status: true,
    progress: true,
    summary: true,
    jobId: true,
    error: true,
    startedBy: true,
    startedAt: true,
    finishedAt: true,
  })
  .extend({
    id: z.string(),
    jobId: z
      .string()
      .nullable()
      .describe(
        "The scan's job (GET /api/v1/admin/jobs/{id}), kept as long as the scan is; null when its record is gone " +
          "(a scan restored from a backup may name a job record pruned since, after JOBS_KEEP_DAYS)",
      ),
    trigger: z
      .enum(integrityScanTriggers)
      .describe("Who or what started it: an administrator (manual), the schedule, `pnpm admin scan` (cli) or a restore (extension)"),
  })
  .meta({ id: "IntegrityScan" });

/** An issue as the API shows it: its document without the scan's bookkeeping. */
export const integrityIssueSchema = integrityIssueDocSchema
  .omit({ scanId: true, documentUpdatedAt: true })
  .extend({ id: z.string() })
  .meta({ id: "IntegrityIssue" });

export const integrityIssueFilterSchema = z.object({
  severity: z.enum(integritySeverities).optional(),
  type: z.enum(integrityIssueTypes).optional(),
  collection: z.string().min(1).max(100).optional(),
  autoFixable: z.enum(["true", "false"]).optional(),
});

export const integrityIssuePageSchema = z
  .object({
    items: z.array(integrityIssueSchema),
    nextCursor: z.string().nullable(),
    counts: z
      .object({
        severity: z.record(z.string(), z.number()),
        type: z.record(z.string(), z.number()),
        collection: z.record(z.string(), z.number()),
        autoFixable: z.record(z.string(), z.number()),
      })
      .describe("Issues per value of each filter, over the whole scan (extension)"),
    openAutoFixable: z.number().int().describe("Auto-fixable issues of the scan not yet repaired: what a bulk repair would work on (extension)"),
  })
  .meta({ id: "IntegrityIssuePage" });

export function presentScan(scan: StoredDocument<IntegrityScanDoc>) {
  const { doc } = scan;
  return {
    id: scan.id,
    kind: doc.kind,
    options: doc.options,
    status: doc.status,
    progress: doc.progress,
    summary: doc.summary,
    jobId: doc.jobId,
    error: doc.error,
    startedBy: doc.startedBy,
    trigger: doc.trigger ?? (doc.startedBy ? ("manual" as const) : ("scheduled" as const)),
    startedAt: doc.startedAt,
    finishedAt: doc.finishedAt,
  };
}

/**
 * The scans with `jobId` null where it names a job record that is gone: the daily prune_tracked_jobs keeps a scan's job while
 * the scan exists, but a restore brings back scans and not jobs, so a restored scan may name one pruned since.
 */
async function withLiveJobIds(db: Executor, scans: Array<StoredDocument<IntegrityScanDoc>>): Promise<Array<StoredDocument<IntegrityScanDoc>>> {
  const ids = [...new Set(scans.flatMap((scan) => (scan.doc.jobId ? [scan.doc.jobId] : [])))];
  if (ids.length === 0) return scans;
  const live = new Set((await db.execute<{ id: string }>(sql`select id from jobs where id in ${ids}`)).map((row) => row.id));
  return scans.map((scan) => (scan.doc.jobId && !live.has(scan.doc.jobId) ? { ...scan, doc: { ...scan.doc, jobId: null } } : scan));
}

export async function getIntegrityScan(options: { deps: Deps; scanId: string }) {
  const scan = await integrityScansCollection.get(options.deps.db, options.scanId);
  if (!scan) throw new AppError("NOT_FOUND", "No such scan");
  const [shown] = await withLiveJobIds(options.deps.db, [scan]);
  return presentScan(shown!);
}

// Newest first by id alone (ids sort by creation), so an id places a cursor; it is still wrapped, so that garbage is told apart.
const scanPosition = keysetCursor({ list: "integrity-scans", parts: ["id"] });

export async function listIntegrityScans(options: { deps: Deps; limit: number; cursor?: string }) {
  const [afterId] = options.cursor ? scanPosition.decode(options.cursor) : [];
  const scans = await integrityScansCollection.findMany(options.deps.db, afterId ? sql`id < ${afterId}` : undefined, sql`id desc`, options.limit + 1);
  const page = scans.slice(0, options.limit);
  return {
    items: (await withLiveJobIds(options.deps.db, page)).map(presentScan),
    nextCursor: scans.length > options.limit ? scanPosition.encode(page.at(-1)!.id) : null,
  };
}

/** A scan's issues, filtered, most severe first, with the counts per value of each filter over the whole scan. */
export async function listIntegrityIssues(options: {
  deps: Deps;
  scanId: string;
  filter: z.infer<typeof integrityIssueFilterSchema>;
  limit: number;
  cursor?: string;
}) {
  const { deps, scanId } = options;
  await getIntegrityScan({ deps, scanId });
  const page = await listIssuePage(deps, scanId, options.filter, options.limit, options.cursor);
  const counts = { severity: {}, type: {}, collection: {}, autoFixable: {} } as Record<
    "severity" | "type" | "collection" | "autoFixable",
    Record<string, number>
  >;
  const rows = await deps.db.execute<{ severity: string; type: string; collection: string; auto_fixable: boolean; count: number; open: number }>(sql`
    select severity, type, collection, auto_fixable, count(*)::int as count, count(*) filter (where doc->>'status' = 'open')::int as open
      from integrity_issues where scan_id = ${scanId}
     group by severity, type, collection, auto_fixable`);
  let openAutoFixable = 0;
  for (const row of rows) {
    if (row.auto_fixable) openAutoFixable += row.open;
    counts.severity[row.severity] = (counts.severity[row.severity] ?? 0) + row.count;
    counts.type[row.type] = (counts.type[row.type] ?? 0) + row.count;
    counts.collection[row.collection] = (counts.collection[row.collection] ?? 0) + row.count;
    counts.autoFixable[String(row.auto_fixable)] = (counts.autoFixable[String(row.auto_fixable)] ?? 0) + row.count;
  }
  return { ...page, counts, openAutoFixable };
}

/** An issue as the API shows it. */
export const presentIssue = ({ id, doc: { scanId: _scan, documentUpdatedAt: _at, ...issue } }: StoredDocument<IntegrityIssueDoc>) => ({ id, ...issue });

type Severity = (typeof integritySeverities)[number];

/** A page's cursor: the last issue's severity and id, so the next page goes on in the same order. */
const issuePosition = keysetCursor({ list: "integrity-issues", parts: [integritySeverities, "id"] });

/**
 * One page of a scan's issues, filtered: critical first, then warning, then info (the order a
 * person works in), each severity in id order. Each severity is read on its own along the
 * (scan, severity, id) index, so a page costs at most three index range reads whatever the scan's size.
 */
async function listIssuePage(deps: Deps, scanId: string, filter: z.infer<typeof integrityIssueFilterSchema>, limit: number, cursor?: string) {
  const [afterSeverity, afterId] = cursor ? issuePosition.decode(cursor) : [];
  const after = afterSeverity && afterId ? { severity: afterSeverity as Severity, id: afterId } : null;
  const conditions = [sql`scan_id = ${scanId}`];
  if (filter.type) conditions.push(sql`type = ${filter.type}`);
  if (filter.collection) conditions.push(sql`collection = ${filter.collection}`);
  if (filter.autoFixable) conditions.push(sql`auto_fixable = ${filter.autoFixable === "true"}`);
  const severities = integritySeverities.filter(
    (severity) =>
      (!filter.severity || severity === filter.severity) && (!after || integritySeverities.indexOf(severity) >= integritySeverities.indexOf(after.severity)),
  );
  const issues: Array<StoredDocument<IntegrityIssueDoc>> = [];
  for (const severity of severities) {
    const where = [...conditions, sql`severity = ${severity}`];
    if (after?.severity === severity) where.push(sql`id > ${after.id}`);
    issues.push(...(await integrityIssuesCollection.findMany(deps.db, sql.join(where, sql` and `), sql`id`, limit + 1 - issues.length)));
    if (issues.length > limit) break;
  }
  const page = issues.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map(presentIssue),
    nextCursor: issues.length > limit && last ? issuePosition.encode(last.doc.severity, last.id) : null,
  };
}

const CSV_COLUMNS = ["id", "severity", "type", "collection", "documentId", "code", "message", "autoFixable", "status", "fix"] as const;
/** One CSV field as the observation export writes it: a cell a spreadsheet would run as a formula is neutralised. */
const csvCell = (value: unknown) =>
  csvField(value === null || value === undefined ? null : typeof value === "string" || typeof value === "number" ? value : JSON.stringify(value));

/**
 * A scan's issues, filtered, as CSV or a JSON array, produced a page (1,000) at a time so that an
 * export of any size streams in constant memory.
 */
export async function* exportIntegrityIssues(options: {
  deps: Deps;
  scanId: string;
  filter: z.infer<typeof integrityIssueFilterSchema>;
  format: "csv" | "json";
}) {
  const { deps, scanId, filter, format } = options;
  await getIntegrityScan({ deps, scanId });
  yield format === "csv" ? `${CSV_COLUMNS.join(",")}\n` : "[";
  let cursor: string | undefined;
  let first = true;
  for (;;) {
    const page = await listIssuePage(deps, scanId, filter, 1000, cursor);
    for (const issue of page.items) {
      if (format === "csv") yield `${CSV_COLUMNS.map((column) => csvCell(issue[column])).join(",")}\n`;
      else {
        yield `${first ? "" : ","}\n${JSON.stringify(issue)}`;
        first = false;
      }
    }
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  if (format === "json") yield "\n]\n";
}

/** The newest finished scan in brief, for `/api/health` details shown to server admins. */
export async function latestScanSummary(deps: Deps) {
  const [scan] = await integrityScansCollection.findMany(deps.db, sql`doc->>'status' in ('completed', 'failed')`, sql`created_at desc`, 1);
  if (!scan) return null;
  return { id: scan.id, kind: scan.doc.kind, status: scan.doc.status, summary: scan.doc.summary, finishedAt: scan.doc.finishedAt };
}

/** A table this small is counted exactly: a few milliseconds, and a fresh table has no statistics (reltuples −1) yet. */
const EXACT_COUNT_BYTES = 8 * 1024 * 1024;

/**
 * The collections a scan can look at, each with its size: counted when the table is small or the
 * planner has no statistics for it, else the planner's estimate scaled to the table's current
 * pages (as the planner itself does), so a table with documents never reads as empty.
 */
export async function listScannableCollections(deps: Deps) {
  const rows = await deps.db.execute<{ name: string; reltuples: number; relpages: number; bytes: number; pages: number }>(sql`
    select relname as name, reltuples::float8 as reltuples, relpages, pg_relation_size(oid)::float8 as bytes,
           pg_relation_size(oid)::float8 / current_setting('block_size')::float8 as pages
      from pg_class where relkind = 'r' and relnamespace = 'public'::regnamespace`);
  const stats = new Map(rows.map((row) => [row.name, row]));
  const names = Object.keys(collections) as Array<keyof typeof collections>;
  const counted = names.filter((name) => {
    const table = stats.get(name);
    return !table || table.bytes <= EXACT_COUNT_BYTES || table.reltuples <= 0 || table.relpages <= 0;
  });
  const counts = new Map<string, number>();
  if (counted.length > 0) {
    const selects = counted.map((name) => sql`select ${name}::text as name, count(*)::float8 as count from ${collections[name].table}`);
    for (const row of await deps.db.execute<{ name: string; count: number }>(sql.join(selects, sql` union all `))) counts.set(row.name, row.count);
  }
  return {
    items: names.map((name) => {
      const exact = counts.get(name);
      if (exact !== undefined) return { name, estimatedDocuments: exact, exact: true };
      const table = stats.get(name)!;
      return { name, estimatedDocuments: Math.round((table.reltuples / table.relpages) * table.pages), exact: false };
    }),
  };
}
