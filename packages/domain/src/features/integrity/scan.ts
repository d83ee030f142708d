import { randomUUID } from "node:crypto";
import {
  collections,
  integrityIssuesCollection,
  integrityScansCollection,
  type Executor,
  type IntegrityIssueDoc,
  type IntegrityScanDoc,
  type IntegrityScanOptions,
  type IntegrityScanTrigger,
} from "@meridian/db";
import { sql } from "drizzle-orm";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { addJob } from "../../platform/jobs/add-job";
import { findJobBySubject, recordJobStarted, reportJob } from "../../platform/jobs/tracked-jobs";
import { isUniqueViolation } from "../../platform/postgres-errors";
import { readServerSettings } from "../system";
import { notifySystemEvent } from "../notifications";
import { HEALTH_CODES, healthFindings } from "./health-check";
import { batchReader, updatedAtIso, type ScannedBatch } from "./batch-reader";
import { checksumMismatch, filesByKey, storageFindings, throttledHasher } from "./storage-check";
import { inThreadChecker, threadedChecker, type DocumentChecker } from "./check-pool";
import { fileObservatoryMismatch, missingReference, type Finding } from "./checks";
import { frameFindings } from "./frame-checks";
import type { CollectionName, DocumentBatchResult } from "./document-checks";
import { findServerAdmins } from "../users";
import { inTransaction, type InTransaction } from "../../platform/transaction";
import { trackedKind } from "../../platform/jobs/define-job";

const BATCH = 5000;
/** A collection with this many documents to scan is checked in worker threads. */
export const THREADED_SCAN_DOCUMENTS = 20_000;
const CHECKSUM_BATCH = 100;
const STORAGE_STAGE = "(storage)";
const CHECKSUM_STAGE = "(checksums)";
const HEALTH_STAGE = "(health)";
/** The stages after the collections, in order; a checkpoint in one of them means every collection is done. */
const lastStages = [STORAGE_STAGE, CHECKSUM_STAGE, HEALTH_STAGE];
const DEFAULT_CHECKSUM_RATE = 32 * 1024 * 1024;
const scannableCollections = Object.keys(collections) as CollectionName[];

/** The scan options of docs/api-contract.md over the spec's defaults for the kind. */
export function scanOptionsFor(options: {
  kind: "quick" | "full";
  input: Partial<IntegrityScanOptions> & { verifyChecksums?: boolean };
}): IntegrityScanOptions {
  const { kind, input } = options;
  const quick = kind === "quick";
  const chosen = input.collections?.length ? input.collections : quick ? ["observations", "projects"] : scannableCollections;
  const unknown = chosen.filter((name) => !scannableCollections.includes(name as CollectionName));
  if (unknown.length > 0)
    throw new AppError("VALIDATION_FAILED", `Unknown collections: ${unknown.join(", ")}`, {
      errors: [{ path: "collections", message: `Unknown: ${unknown.join(", ")}` }],
    });
  return {
    collections: chosen,
    deepScan: input.deepScan ?? false,
    checkStorage: input.checkStorage ?? false,
    checkHealth: input.checkHealth ?? false,
    limitPerCollection: input.limitPerCollection ?? (quick ? 100 : null),
    includeTestData: input.includeTestData ?? false,
    checksumBytesPerSecond: input.checksumBytesPerSecond ?? (input.verifyChecksums ? DEFAULT_CHECKSUM_RATE : null),
  };
}

/** Starts a scan as a job; one scan of a kind at a time (409 SCAN_RUNNING naming the running one). */
export async function startIntegrityScan(options: {
  deps: Deps;
  actor: UserActor | null;
  /** Who or what starts it when no administrator does (default: the administrator, or else the schedule). */
  trigger?: IntegrityScanTrigger;
  kind: "quick" | "full";
  input: Partial<IntegrityScanOptions> & { verifyChecksums?: boolean };
}) {
  const { deps, kind } = options;
  try {
    const { deps: _deps, ...start } = options;
    return await inTransaction(deps, (t) => startIntegrityScanIn({ t, ...start }));
  } catch (error) {
    if (!isUniqueViolation({ error })) throw error;
    const [running] = await deps.db.execute<{ id: string }>(
      sql`select id from integrity_scans where kind = ${kind} and status in ('queued', 'running') limit 1`,
    );
    throw new AppError("SCAN_RUNNING", `A ${kind} scan is already running: ${running?.id ?? "unknown"}`, {
      errors: [{ path: "scanId", message: running?.id ?? "" }],
    });
  }
}

/** The same in the caller's transaction, where no scan of the kind can be running (a restore's swap closed them). */
export async function startIntegrityScanIn(options: {
  t: Pick<InTransaction, "tx" | "now">;
  actor: UserActor | null;
  trigger?: IntegrityScanTrigger;
  kind: "quick" | "full";
  input: Partial<IntegrityScanOptions> & { verifyChecksums?: boolean };
}) {
  const { t, actor, kind } = options;
  const now = t.now();
  const scan = await integrityScansCollection.insert(t.tx, {
    kind,
    options: scanOptionsFor({ kind, input: options.input }),
    status: "queued",
    progress: { collection: null, scanned: 0, total: null },
    summary: { critical: 0, warning: 0, info: 0 },
    checkpoint: null,
    jobId: null,
    startedBy: actor?.id ?? null,
    trigger: options.trigger ?? (actor ? "manual" : "scheduled"),
    startedAt: now.toISOString(),
    finishedAt: null,
    error: null,
  });
  const job = await recordJobStarted({ t, kind: trackedKind("integrity_scan"), startedBy: actor?.id ?? null, subjectId: scan.id, now });
  const stored = await integrityScansCollection.update(t.tx, scan.id, (doc) => ({ ...doc, jobId: job.id }));
  await addJob({ t, name: "integrity_scan", payload: { scanId: scan.id } });
  return stored!;
}

/**
 * How many documents the scan reads of a collection, and the last id among them (null when it is empty): documents
 * written while it runs come after it, so they are neither counted nor read, and the progress never passes its total.
 */
async function countOf(db: Executor, collection: CollectionName, limit: number | null) {
  const [row] = await db.execute<{ count: number; last: string | null }>(
    sql`select count(*)::int as count, max(id) as last from ${collections[collection].table}`,
  );
  const count = row?.count ?? 0;
  return { count: limit === null ? count : Math.min(limit, count), lastId: row?.last ?? null };
}

/** Of these ids in a collection, the ones that exist. */
async function existing(db: Executor, collection: CollectionName, ids: string[]) {
  if (ids.length === 0) return new Set<string>();
  const rows = await db.execute<{ id: string }>(sql`select id from ${collections[collection].table} where id in ${ids}`);
  return new Set(rows.map((row) => row.id));
}

/**
 * Runs a scan (the `integrity_scan` job): each chosen collection in id order, in batches of 500,
 * with constant memory. Each batch's issues, the progress and the checkpoint are written in one
 * transaction, so a scan whose worker dies resumes after its last finished batch when the job is
 * retried, and never records an issue twice.
 */
export async function runIntegrityScan(options: { deps: Deps; scanId: string }) {
  try {
    await runScan(options.deps, options.scanId);
  } catch (error) {
    if (!(error instanceof ScanTakenOver)) throw error;
  }
}

/** Another run of the same scan (a retry while this one still ran) owns it now: this one stops. */
class ScanTakenOver extends Error {}

async function runScan(deps: Deps, scanId: string) {
  const runId = randomUUID();
  // Taking the scan and reading its checkpoint in one locked step: every batch an older run
  // committed before is in the checkpoint, and every batch it tries after is refused.
  const scan = await inTransaction(deps, async (t) => {
    const current = await integrityScansCollection.get(t.tx, scanId, { forUpdate: true });
    if (!current || current.doc.status === "completed" || current.doc.status === "failed") return undefined;
    return integrityScansCollection.update(t.tx, scanId, (doc) => ({ ...doc, runId }));
  });
  if (!scan) return;
  const guarded = <T>(work: (t: InTransaction) => Promise<T>) =>
    inTransaction(deps, async (t) => {
      const current = await integrityScansCollection.get(t.tx, scanId, { forUpdate: true });
      // Overtaken by a retry, or ended from outside (cancelled, taken for abandoned): stop here.
      if (current?.doc.runId !== runId || current.doc.status === "failed") throw new ScanTakenOver();
      return work(t);
    });
  const jobId = scan.doc.jobId ?? (await findJobBySubject({ db: deps.db, kind: trackedKind("integrity_scan"), subjectId: scanId }))?.id;
  const settings = await readServerSettings(deps.db);
  const { options: scanOptions } = scan.doc;
  const names = scanOptions.collections as CollectionName[];
  const counts = new Map<CollectionName, { count: number; lastId: string | null }>();
  for (const name of names) counts.set(name, await countOf(deps.db, name, scanOptions.limitPerCollection));
  const total = [...counts.values()].reduce((sum, { count }) => sum + count, 0);
  let scanned = scan.doc.progress.scanned;
  await guarded((t) => patchScan(t.tx, scanId, { status: "running", progress: { ...scan.doc.progress, total } }));
  if (jobId) await reportJob({ deps, jobId, status: "running", progress: { done: scanned, total, stage: "scanning" } });
  const resumeAt = scan.doc.checkpoint;
  // A checkpoint in the storage or health stage means every collection is done.
  const resumeStage = resumeAt ? lastStages.indexOf(resumeAt.collection) : -1;
  const startIndex = !resumeAt ? 0 : resumeStage >= 0 ? names.length : Math.max(0, names.indexOf(resumeAt.collection as CollectionName));
  const runsStage = (stage: string) => lastStages.indexOf(stage) >= resumeStage;

  let reportedAt = 0;
  // Progress goes to the job (and over /ws) at most once a second, not once a batch.
  const reportProgress = async (stage: string) => {
    if (!jobId || performance.now() - reportedAt < 1000) return;
    reportedAt = performance.now();
    await reportJob({ deps, jobId, progress: { done: scanned, total, stage } });
  };
  for (const name of names.slice(startIndex)) {
    const { count, lastId: untilId } = counts.get(name)!;
    if (untilId === null) continue;
    const afterId = resumeAt && resumeAt.collection === name ? resumeAt.afterId : null;
    const read = afterId ? await scannedBefore(deps.db, name, afterId) : 0;
    const limit = scanOptions.limitPerCollection ?? Infinity;
    const checker = count - read >= THREADED_SCAN_DOCUMENTS ? threadedChecker() : inThreadChecker;
    try {
      // Batches are read several at once, checked several at once (one per check thread), and
      // written in order, so the checkpoint only moves past checked batches.
      const checking: Array<Promise<{ batch: ScannedBatch; result: DocumentBatchResult }>> = [];
      const reader = batchReader({ sql: deps.sql, name, afterId, untilId, limit: limit - read, size: BATCH, ahead: checker.parallelism + 1 });
      let exhausted = false;
      for (;;) {
        while (!exhausted && checking.length <= checker.parallelism) {
          const batch = await reader.next();
          if (!batch) {
            exhausted = true;
            break;
          }
          const checked = checkBatch(checker, name, batch, scanOptions, settings, deps.now()).then((result) => ({ batch, result }));
          checked.catch(() => undefined);
          checking.push(checked);
        }
        const next = checking.shift();
        if (!next) break;
        const { batch, result } = await next;
        scanned += batch.ids.length;
        const found = await issuesOf(deps, name, batch, result);
        const progress = { collection: name, scanned, total };
        const checkpoint = { collection: name, afterId: batch.lastId! };
        // The hot path: one statement that moves the checkpoint only while this run owns the scan
        // (a takeover's row lock makes it wait, then see the new owner), beside the batch's issues.
        const advance = async (db: Executor) => {
          const moved = await integrityScansCollection.patch(db, sql`id = ${scanId} and doc->>'runId' = ${runId}`, {
            progress: sql`${JSON.stringify(progress)}::jsonb`,
            checkpoint: sql`${JSON.stringify(checkpoint)}::jsonb`,
          });
          if (moved.length === 0) throw new ScanTakenOver();
        };
        if (found.length === 0) await advance(deps.db);
        else
          await inTransaction(deps, async (t) => {
            await integrityIssuesCollection.insertMany(
              t.tx,
              found.map((issue) => ({ ...issue, scanId })),
            );
            await advance(t.tx);
          });
        await reportProgress(name);
      }
    } finally {
      await checker.close();
    }
  }
  if (scanOptions.checkStorage && runsStage(STORAGE_STAGE)) {
    // The storage stage is one merge pass: a retry starts it again, without the issues of the try before.
    await guarded(async (t) => {
      await t.tx.execute(sql`delete from integrity_issues where scan_id = ${scanId} and type = 'file'`);
      await patchScan(t.tx, scanId, { progress: { collection: "storage", scanned, total }, checkpoint: { collection: STORAGE_STAGE, afterId: null } });
    });
    if (jobId) await reportJob({ deps, jobId, progress: { done: scanned, total, stage: "storage" } });
    let batch: Array<Omit<IntegrityIssueDoc, "scanId">> = [];
    const flush = async () => {
      const issues = batch;
      batch = [];
      await guarded((t) =>
        integrityIssuesCollection.insertMany(
          t.tx,
          issues.map((issue) => ({ ...issue, scanId })),
        ),
      );
    };
    for await (const issue of storageFindings({ db: deps.db, storage: deps.storage, now: deps.now() })) {
      batch.push(issue);
      if (batch.length >= BATCH) await flush();
    }
    await flush();
  }
  if (scanOptions.checkStorage && scanOptions.checksumBytesPerSecond && runsStage(CHECKSUM_STAGE)) {
    let after: { key: string; id: string } | null = resumeAt?.collection === CHECKSUM_STAGE && resumeAt.afterId ? JSON.parse(resumeAt.afterId) : null;
    if (jobId) await reportJob({ deps, jobId, progress: { done: scanned, total, stage: "checksums" } });
    const reader = throttledHasher({ storage: deps.storage, bytesPerSecond: scanOptions.checksumBytesPerSecond });
    for (;;) {
      const records = await filesByKey({ db: deps.db, after, limit: CHECKSUM_BATCH });
      if (records.length === 0) break;
      const found: Array<Omit<IntegrityIssueDoc, "scanId">> = [];
      for (const record of records) {
        const sha256 = await reader.hash(record.object_key);
        if (sha256 !== null && sha256 !== record.doc.sha256) found.push(checksumMismatch({ record, actual: sha256 }));
      }
      after = { key: records.at(-1)!.object_key, id: records.at(-1)!.id };
      await guarded(async (t) => {
        await integrityIssuesCollection.insertMany(
          t.tx,
          found.map((issue) => ({ ...issue, scanId })),
        );
        const checkpoint = { collection: CHECKSUM_STAGE, afterId: JSON.stringify(after) };
        await patchScan(t.tx, scanId, { progress: { collection: "checksums", scanned, total }, checkpoint });
      });
    }
  }
  if (scanOptions.checkHealth) {
    if (jobId) await reportJob({ deps, jobId, progress: { done: scanned, total, stage: "health" } });
    const found = await healthFindings(deps);
    await guarded(async (t) => {
      await t.tx.execute(sql`delete from integrity_issues where scan_id = ${scanId} and doc->>'code' in ${HEALTH_CODES}`);
      await integrityIssuesCollection.insertMany(
        t.tx,
        found.map((issue) => ({ ...issue, scanId })),
      );
      await patchScan(t.tx, scanId, { progress: { collection: "health", scanned, total }, checkpoint: { collection: HEALTH_STAGE, afterId: null } });
    });
  }
  const summary = await summaryOf(deps.db, scanId);
  await guarded(async (t) => {
    await patchScan(t.tx, scanId, { status: "completed", summary, finishedAt: t.now().toISOString(), progress: { collection: null, scanned, total } });
    // A scan no one watches (the schedule's, or a restore's) tells the server admins when it finds data at risk.
    if (!scan.doc.startedBy && scan.doc.trigger !== "cli" && summary.critical > 0) await notifyAdminsOfCriticalIssues(t, scanId, scan.doc.kind, summary);
  });
  if (jobId) await reportJob({ deps, jobId, status: "completed", progress: { done: scanned, total, stage: "done" }, result: { scanId, summary } });
}

/** How many documents of the collection come at or before `afterId`: where a resumed scan stands in its limit. */
async function scannedBefore(db: Executor, name: CollectionName, afterId: string) {
  const [row] = await db.execute<{ count: number }>(sql`select count(*)::int as count from ${collections[name].table} where id <= ${afterId}`);
  return row?.count ?? 0;
}

function checkBatch(
  checker: DocumentChecker,
  name: CollectionName,
  { documents }: ScannedBatch,
  options: IntegrityScanOptions,
  settings: Awaited<ReturnType<typeof readServerSettings>>,
  now: Date,
) {
  return checker.check({ collection: name, documents, includeTestData: options.includeTestData, deepScan: options.deepScan, settings, now: now.toISOString() });
}

/**
 * A checked batch's issues: what the documents say on their own, and what only the database can
 * tell (a file uploaded by another observatory than its observation's; a frame left queued; a
 * completed observation whose frames all missed its target; for a deep scan, references to
 * documents that do not exist).
 */
async function issuesOf(
  deps: Deps,
  name: CollectionName,
  { ids, updatedAt }: ScannedBatch,
  result: DocumentBatchResult,
): Promise<Array<Omit<IntegrityIssueDoc, "scanId">>> {
  const issues: Array<Omit<IntegrityIssueDoc, "scanId">> = [];
  const add = (index: number, finding: Finding) =>
    issues.push({
      ...finding,
      collection: name,
      documentId: ids[index]!,
      status: "open",
      documentUpdatedAt: updatedAtIso(updatedAt[index]!),
    });
  for (const { index, finding } of result.findings) add(index, finding);

  if (result.fileLinks.length > 0) {
    const observationIds = [...new Set(result.fileLinks.map((link) => link.observationId))];
    // An observation with candidates may have run at any of them (a monitoring one, at several).
    const observatoriesOf = new Map<string, string[]>();
    for (const row of await deps.db.execute<{ id: string; candidate_observatory_ids: string[] }>(
      sql`select id, candidate_observatory_ids from observations where id in ${observationIds}`,
    ))
      observatoriesOf.set(row.id, row.candidate_observatory_ids);
    for (const link of result.fileLinks) {
      const expected = observatoriesOf.get(link.observationId);
      if (expected && !expected.includes(link.observatoryId))
        add(link.index, fileObservatoryMismatch({ fileObservatoryId: link.observatoryId, observationObservatoryId: expected.join(", ") }));
    }
  }

  for (const { index, finding } of await frameFindings({ db: deps.db, ids, candidates: result.frames, now: deps.now() })) add(index, finding);

  if (result.references.length > 0) {
    const wanted = new Map<CollectionName, Set<string>>();
    for (const { target, id } of result.references) wanted.set(target, (wanted.get(target) ?? new Set()).add(id));
    const found = new Map<CollectionName, Set<string>>();
    for (const [target, ids] of wanted) found.set(target, await existing(deps.db, target, [...ids]));
    for (const { index, field, target, id } of result.references)
      if (!found.get(target)?.has(id)) add(index, missingReference({ field, collection: target, id }));
  }
  return issues;
}

async function summaryOf(db: Executor, scanId: string) {
  const rows = await db.execute<{ severity: "critical" | "warning" | "info"; count: number }>(sql`
    select severity, count(*)::int as count from integrity_issues where scan_id = ${scanId} group by severity`);
  const summary = { critical: 0, warning: 0, info: 0 };
  for (const row of rows) summary[row.severity] = row.count;
  return summary;
}

async function patchScan(db: Executor, scanId: string, change: Partial<IntegrityScanDoc>) {
  await integrityScansCollection.update(db, scanId, (doc) => ({ ...doc, ...change }));
}

async function notifyAdminsOfCriticalIssues(t: InTransaction, scanId: string, kind: string, summary: IntegrityScanDoc["summary"]) {
  const admins = await findServerAdmins(t.tx);
  await notifySystemEvent({
    t,
    users: admins,
    event: {
      kind: "integrity_critical",
      subject: `Integrity scan: ${summary.critical} critical issue${summary.critical === 1 ? "" : "s"}`,
      lines: [
        `The scheduled ${kind} integrity scan ${scanId} found ${summary.critical} critical, ${summary.warning} warning and ${summary.info} info issues.`,
        "Critical issues risk data loss (missing files, broken references). Review and repair them under System → Database Integrity.",
      ],
      path: `/admin/integrity?scan=${scanId}`,
      priority: 1,
    },
  });
}

/** A scan whose job used up its attempts: recorded as failed, so another of its kind may start. */
/** Fails a scan that has not finished (a finished one stays as it is), and its job. */
export async function failIntegrityScan(options: { deps: Deps; scanId: string; error: string }) {
  const { deps, scanId, error } = options;
  await integrityScansCollection.update(deps.db, scanId, (doc) =>
    doc.status === "queued" || doc.status === "running" ? { ...doc, status: "failed", error: error.slice(0, 500), finishedAt: deps.now().toISOString() } : doc,
  );
  const job = await findJobBySubject({ db: deps.db, kind: trackedKind("integrity_scan"), subjectId: scanId });
  if (job) await reportJob({ deps, jobId: job.id, status: "failed", error: error.slice(0, 500) });
}
