import {
  collections,
  integrityIssueDocSchema,
  integrityScanDocSchema,
  integrityIssuesCollection,
  integrityScansCollection,
  integrityIssueTypes,
  integrityScanKinds,
  integritySeverities,
  type IntegrityIssueDoc,
  type IntegrityScanDoc,
  type StoredDocument,
} from "@meridian/db";
import { sql } from "drizzle-orm";
import { z } from "zod";
import type { Deps } from "../deps";
import { AppError } from "../errors";

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
  .extend({ id: z.string() })
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
    startedAt: doc.startedAt,
    finishedAt: doc.finishedAt,
  };
}

export async function getIntegrityScan(options: { deps: Deps; scanId: string }) {
  const scan = await integrityScansCollection.get(options.deps.db, options.scanId);
  if (!scan) throw new AppError("NOT_FOUND", "No such scan");
  return presentScan(scan);
}

export async function listIntegrityScans(options: { deps: Deps; limit: number; cursor?: string }) {
  const scans = await integrityScansCollection.findMany(
    options.deps.db,
    options.cursor ? sql`id < ${options.cursor}` : undefined,
    sql`id desc`,
    options.limit + 1,
  );
  const page = scans.slice(0, options.limit);
  return { items: page.map(presentScan), nextCursor: scans.length > options.limit ? page.at(-1)!.id : null };
}

/** A scan's issues, filtered, in id order, with the counts per value of each filter over the whole scan. */
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

/** One page of a scan's issues in id order, filtered. */
async function listIssuePage(deps: Deps, scanId: string, filter: z.infer<typeof integrityIssueFilterSchema>, limit: number, cursor?: string) {
  const conditions = [sql`scan_id = ${scanId}`];
  if (filter.severity) conditions.push(sql`severity = ${filter.severity}`);
  if (filter.type) conditions.push(sql`type = ${filter.type}`);
  if (filter.collection) conditions.push(sql`collection = ${filter.collection}`);
  if (filter.autoFixable) conditions.push(sql`auto_fixable = ${filter.autoFixable === "true"}`);
  if (cursor) conditions.push(sql`id > ${cursor}`);
  const issues = await integrityIssuesCollection.findMany(deps.db, sql.join(conditions, sql` and `), sql`id`, limit + 1);
  const page = issues.slice(0, limit);
  return {
    items: page.map(presentIssue),
    nextCursor: issues.length > limit ? page.at(-1)!.id : null,
  };
}

const CSV_COLUMNS = ["id", "severity", "type", "collection", "documentId", "code", "message", "autoFixable", "status", "fix"] as const;
const csvCell = (value: unknown) => {
  const text = value === null || value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

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

/** The collections a scan can look at, each with the planner's estimate of its size (cheap: no count). */
export async function listScannableCollections(deps: Deps) {
  const rows = await deps.db.execute<{ name: string; estimate: number }>(sql`
    select relname as name, greatest(reltuples, 0)::bigint::int as estimate from pg_class
     where relkind = 'r' and relnamespace = 'public'::regnamespace`);
  const estimates = new Map(rows.map((row) => [row.name, row.estimate]));
  return { items: Object.keys(collections).map((name) => ({ name, estimatedDocuments: estimates.get(name) ?? 0 })) };
}
