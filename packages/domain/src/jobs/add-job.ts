import type { Executor } from "@meridian/db";
import { sql } from "drizzle-orm";

/**
 * Queues a graphile-worker job inside the actor's transaction: the job exists exactly when
 * the change that caused it was committed.
 */
export async function addJob(db: Executor, task: string, payload: unknown, options: { jobKey?: string; maxAttempts?: number; runAt?: Date } = {}) {
  await db.execute(sql`select graphile_worker.add_job(
    ${task},
    ${JSON.stringify(payload)}::json,
    job_key => ${options.jobKey ?? null}::text,
    max_attempts => ${options.maxAttempts ?? 10}::int,
    run_at => ${options.runAt?.toISOString() ?? null}::timestamptz
  )`);
}
