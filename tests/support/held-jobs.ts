import { inTransaction, recordJobStarted, type Deps } from "@meridian/domain/platform";
import { sql } from "drizzle-orm";

/**
 * A tracked job that a test runs, or holds running, by hand. It is recorded with a
 * graphile-worker job that carries it but never runs (a task no worker knows, due tomorrow).
 * The test server's worker sweeps every minute, and the sweep fails a queued or running job
 * whose background job is gone; without the carrier, a sweep that falls between the record and
 * the test's own run fails the job under the test.
 */
export function recordHeldJob(deps: Deps, options: Omit<Parameters<typeof recordJobStarted>[0], "t" | "now">) {
  return inTransaction(deps, async (t) => {
    const job = await recordJobStarted({ t, ...options, now: deps.now() });
    await t.tx.execute(
      sql`select graphile_worker.add_job('test_held_job', json_build_object('jobId', ${job.id}::text), run_at := now() + interval '1 day', max_attempts := 1)`,
    );
    return job;
  });
}
