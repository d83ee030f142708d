import { jobsCollection, tables, type Executor, type JobDoc, type StoredDocument } from "@meridian/db";
import { and, desc, eq, getTableColumns, sql, type SQL } from "drizzle-orm";
import type { Deps } from "../deps";
import { inTransaction, type InTransaction } from "../transaction";
import { AppError } from "../errors";
import { publishUserEvent } from "../events/publish";
import { instantKey, keysetCursor } from "../validation/keyset-cursor";

export type JobStatus = JobDoc["status"];
export type JobProgress = JobDoc["progress"];

/** Allowed moves of a job's status, as data; a finished job stays finished. */
const JOB_TRANSITIONS: Readonly<Record<JobStatus, readonly JobStatus[]>> = {
  queued: ["running", "completed", "failed"],
  running: ["running", "completed", "failed"],
  completed: [],
  failed: [],
};

export interface JobView {
  id: string;
  kind: string;
  status: JobStatus;
  progress: JobProgress;
  result: unknown;
  error: string | null;
  startedBy: string | null;
  startedByName: string | null;
  subjectId: string | null;
  startedAt: string;
  finishedAt: string | null;
}

const presentJob = ({ job, names = new Map() }: { job: StoredDocument<JobDoc>; names?: ReadonlyMap<string, string> }): JobView => ({
  id: job.id,
  kind: job.doc.kind,
  status: job.doc.status,
  progress: job.doc.progress,
  result: job.doc.result ?? null,
  error: job.doc.error,
  startedBy: job.doc.startedBy,
  startedByName: job.doc.startedBy ? (names.get(job.doc.startedBy) ?? null) : null,
  subjectId: job.doc.subjectId,
  startedAt: job.doc.startedAt,
  finishedAt: job.doc.finishedAt,
});

/** The names of the users who started these jobs, in one query. */
async function starterNames(db: Executor, jobs: ReadonlyArray<StoredDocument<JobDoc>>): Promise<Map<string, string>> {
  const ids = [...new Set(jobs.flatMap((job) => (job.doc.startedBy ? [job.doc.startedBy] : [])))];
  if (ids.length === 0) return new Map();
  const rows = await db.execute<{ id: string; name: string }>(sql`select id, doc->>'name' as name from users where id in ${ids}`);
  return new Map(rows.map((row) => [row.id, row.name]));
}

/** `job.progress` to whoever started the job and to every server administrator, in the caller's transaction. */
async function announceProgress(t: Pick<InTransaction, "tx">, job: StoredDocument<JobDoc>) {
  const admins = await t.tx.execute<{ id: string }>(sql`select id from users where doc->'roles' ? 'serverAdmin'`);
  const userIds = [...new Set([...(job.doc.startedBy ? [job.doc.startedBy] : []), ...admins.map((row) => row.id)])];
  await publishUserEvent({
    t,
    userIds,
    event: { type: "job.progress", data: { id: job.id, kind: job.doc.kind, status: job.doc.status, progress: job.doc.progress } },
  });
}

/**
 * Records a long job a person started, queued, in the caller's transaction: the same one that
 * adds the graphile-worker job(s) doing the work, so the record exists exactly when the work does.
 */
export async function recordJobStarted(options: {
  t: Pick<InTransaction, "tx">;
  kind: string;
  startedBy: string | null;
  subjectId?: string;
  total?: number;
  stage?: string;
  now: Date;
}): Promise<StoredDocument<JobDoc>> {
  const { t } = options;
  const job = await jobsCollection.insert(t.tx, {
    kind: options.kind,
    status: "queued",
    progress: { done: 0, total: options.total ?? null, stage: options.stage ?? null },
    result: null,
    error: null,
    startedBy: options.startedBy,
    subjectId: options.subjectId ?? null,
    startedAt: options.now.toISOString(),
    finishedAt: null,
  });
  await announceProgress(t, job);
  return job;
}

/**
 * Thrown at a run that reports progress on a job that has already failed: it was cancelled, or
 * taken for abandoned. The run stops there, and its own cleanup (finally blocks) runs.
 */
export class JobEnded extends Error {
  constructor(
    readonly jobId: string,
    reason: string | null,
  ) {
    super(`Job ${jobId} has ended: ${reason ?? "failed"}`);
  }
}

export type JobReport = { status?: JobStatus; progress?: Partial<JobProgress>; result?: unknown; error?: string };

/**
 * Moves a job on: new progress, running, completed with a result, or failed with an error. A
 * finished job is left as it is (a late report from a retried run changes nothing) and undefined
 * is returned; but progress on a failed job throws `JobEnded`, so a run that was cancelled stops.
 * The change and its `job.progress` event share one transaction.
 */
export async function reportJob(options: { deps: Deps; jobId: string } & JobReport): Promise<StoredDocument<JobDoc> | undefined> {
  const { deps, ...report } = options;
  return inTransaction(deps, (t) => reportJobIn({ t, ...report }));
}

/** The same, in the caller's transaction (a restore completes in the transaction that swaps its data in). */
export async function reportJobIn(options: { t: Pick<InTransaction, "tx" | "now">; jobId: string } & JobReport): Promise<StoredDocument<JobDoc> | undefined> {
  const { t, jobId, ...report } = options;
  const current = await jobsCollection.get(t.tx, jobId, { forUpdate: true });
  if (!current) throw new AppError("NOT_FOUND", "No such job");
  const status = report.status ?? (current.doc.status === "queued" ? "running" : current.doc.status);
  const finishing = report.status === "completed" || report.status === "failed";
  if (current.doc.status === "failed" && !finishing) throw new JobEnded(jobId, current.doc.error);
  if (!JOB_TRANSITIONS[current.doc.status].includes(status)) return undefined;
  const finished = status === "completed" || status === "failed";
  const updated = await jobsCollection.update(t.tx, jobId, (doc) => ({
    ...doc,
    status,
    progress: { ...doc.progress, ...report.progress },
    result: report.result === undefined ? doc.result : report.result,
    error: report.error ?? doc.error,
    finishedAt: finished ? t.now().toISOString() : null,
  }));
  await announceProgress(t, updated!);
  return updated;
}

/** The newest job of a kind about a subject (the email fan-out of an announcement). */
export async function findJobBySubject(options: { db: Executor; kind: string; subjectId: string }): Promise<StoredDocument<JobDoc> | undefined> {
  const { jobs } = tables;
  const [job] = await jobsCollection.findMany(
    options.db,
    and(eq(jobs.kind, options.kind), eq(jobs.subjectId, options.subjectId)),
    sql`${jobs.createdAt} desc`,
    1,
  );
  return job;
}

/** Server admins: one job. */
export async function getJob(options: { deps: Deps; jobId: string }): Promise<JobView> {
  const job = await jobsCollection.get(options.deps.db, options.jobId);
  if (!job) throw new AppError("NOT_FOUND", "No such job");
  return presentJob({ job, names: await starterNames(options.deps.db, [job]) });
}

const jobPosition = keysetCursor({ list: "jobs", parts: ["instant", "id"] });

/** Server admins: jobs newest first, optionally of one kind or status; the cursor holds the last job's time and id. */
export async function listJobs(options: {
  deps: Deps;
  limit: number;
  cursor?: string;
  kind?: string;
  status?: JobStatus;
}): Promise<{ items: JobView[]; nextCursor: string | null }> {
  const { deps, limit } = options;
  const { jobs } = tables;
  const conditions: SQL[] = [];
  if (options.kind) conditions.push(eq(jobs.kind, options.kind));
  if (options.status) conditions.push(eq(jobs.status, options.status));
  if (options.cursor) {
    const [at, id] = jobPosition.decode(options.cursor);
    conditions.push(sql`(${jobs.createdAt}, ${jobs.id}) < (${at}::timestamptz, ${id})`);
  }
  const rows = await deps.db
    .select({ ...getTableColumns(jobs), cursorKey: instantKey(jobs.createdAt) })
    .from(jobs)
    .where(conditions.length > 0 ? and(...conditions) : undefined)
    .orderBy(desc(jobs.createdAt), desc(jobs.id))
    .limit(limit + 1);
  const found = rows.slice(0, limit).map((row) => ({ id: row.id, doc: row.doc, createdAt: row.createdAt, updatedAt: row.updatedAt }));
  const names = await starterNames(deps.db, found);
  const page = found.map((job) => presentJob({ job, names }));
  return { items: page, nextCursor: rows.length > limit ? jobPosition.encode(rows[limit - 1]!.cursorKey, rows[limit - 1]!.id) : null };
}
