import type { Executor } from "@meridian/db";
import { sql } from "drizzle-orm";
import { jobContracts, type JobName, type JobPayload } from "./contracts";

/**
 * Queues a graphile-worker job inside the caller's transaction: the job exists exactly when
 * the change that caused it was committed. The payload is checked against the job's contract
 * here, so a malformed job is refused where it is made, not found later by the worker. Jobs with
 * one `queueName` run one at a time, in the order they were added.
 */
export async function addJob<Name extends JobName>(
  db: Executor,
  name: Name,
  payload: JobPayload<Name>,
  options: { jobKey?: string; maxAttempts?: number; runAt?: Date; queueName?: string } = {},
) {
  const checked = jobContracts[name].payload.parse(payload);
  await db.execute(sql`select graphile_worker.add_job(
    ${name},
    ${JSON.stringify(checked ?? {})}::json,
    queue_name => ${options.queueName ?? null}::text,
    job_key => ${options.jobKey ?? null}::text,
    max_attempts => ${options.maxAttempts ?? 10}::int,
    run_at => ${options.runAt?.toISOString() ?? null}::timestamptz
  )`);
}
