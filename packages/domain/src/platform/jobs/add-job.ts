import { sql } from "drizzle-orm";
import type { InTransaction } from "../transaction";
import { registeredJob, type JobName, type JobPayload } from "./define-job";

/**
 * Queues a graphile-worker job inside the caller's transaction: the job exists exactly when
 * the change that caused it was committed. The payload is checked against the job's definition
 * here, so a malformed job is refused where it is made, not found later by the worker. Jobs with
 * one `queueName` run one at a time, in the order they were added. A `jobKey` replaces the waiting
 * job of that key (`preserve_run_at`: keeping its time when it has not failed yet). The attempts, key,
 * queue and flags are the definition's unless given here. Answers the job's id, or null
 * when a `jobKey` names a job that a worker locked in the meantime (graphile-worker then neither
 * replaces it nor adds one: the caller decides what a job already running covers).
 */
export async function addJob<Name extends JobName>(options: {
  t: Pick<InTransaction, "tx">;
  name: Name;
  payload: JobPayload<Name>;
  /** Overrides the definition's key; null: no key. */
  jobKey?: string | null;
  jobKeyMode?: "replace" | "preserve_run_at";
  maxAttempts?: number;
  runAt?: Date;
  queueName?: string;
  /** graphile-worker's flags: a runner whose `forbiddenFlags` names one of them leaves the job for another. */
  flags?: string[];
}): Promise<string | null> {
  const { name } = options;
  const job = registeredJob(name);
  const checked = job.payload.parse(options.payload);
  const jobKey = options.jobKey === undefined ? job.jobKey?.(checked) : options.jobKey;
  const queueName = options.queueName ?? job.queueName?.(checked);
  const flags = options.flags ?? job.flags;
  const [added] = await options.t.tx.execute<{ id: string | null }>(sql`select (graphile_worker.add_job(
    ${name},
    ${JSON.stringify(checked ?? {})}::json,
    queue_name => ${queueName ?? null}::text,
    job_key => ${jobKey ?? null}::text,
    max_attempts => ${options.maxAttempts ?? job.maxAttempts ?? 10}::int,
    run_at => ${options.runAt?.toISOString() ?? null}::timestamptz,
    job_key_mode => ${options.jobKeyMode ?? "replace"}::text,
    flags => (select array_agg(flag) from json_array_elements_text(${flags ? JSON.stringify(flags) : null}::json) as flag)
  )).id::text as id`);
  return added?.id ?? null;
}

/**
 * A keyed job that also serves a change written while a worker runs the key's job: graphile-worker
 * answers null when a worker locked that job between its look and its write, and that run may have
 * read what the caller is writing before it was there, so one more job, unkeyed, follows it.
 */
export async function addKeyedJobOrFollower<Name extends JobName>(options: Parameters<typeof addJob<Name>>[0]): Promise<void> {
  if ((await addJob(options)) === null) await addJob({ ...options, jobKey: null, jobKeyMode: undefined });
}
