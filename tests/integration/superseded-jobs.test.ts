import { queueDispatch } from "@meridian/domain/observations";
import { enqueueEmail, inTransaction, recoverStaleWorkers, type Deps } from "@meridian/domain/platform";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestRuntime, type TestRuntime } from "../support/test-runtime";

/**
 * Found by `pnpm test:topology`: a keyed job that graphile-worker took its key from while a worker
 * ran it (a newer job of the key was added, and graphile-worker set the running one's attempts to
 * its maximum), then the worker died. Freed, it would stay in the table failed for good with no
 * error; instead it is removed, and an email job's message is queued again.
 */

/** The scene graphile-worker leaves: the job running on a worker that has died, its key taken and attempts spent. */
async function strandOnDeadWorker(deps: Deps, jobCondition: ReturnType<typeof sql>) {
  const [job] = await deps.db.execute<{ id: string }>(sql`
    update graphile_worker._private_jobs
       set locked_by = 'worker-of-a-dead-process', locked_at = now(), attempts = max_attempts, key = null
     where ${jobCondition}
    returning id::text`);
  expect(job).toBeDefined();
  await deps.db.execute(sql`
    insert into worker_heartbeats (worker_id, graphile_worker_ids) values ('dead-process', array['worker-of-a-dead-process']::text[])`);
  return job!.id;
}

let runtime: TestRuntime;
beforeAll(async () => {
  // No worker and no HTTP: the test sets the scene in the job table and runs the recovery itself.
  runtime = await startTestRuntime();
});
afterAll(() => runtime?.stop());

describe("a dead worker's superseded email job", () => {
  it("is removed, and the recipient's pending message gets a job that will run", async () => {
    const { deps } = runtime;
    const to = "stranded@example.com";
    const outboxId = await inTransaction(deps, (t) => enqueueEmail({ t, kind: "test", to, subject: "Still to send", text: "Hello" }));
    const stranded = await strandOnDeadWorker(deps, sql`payload->>'outboxId' = ${outboxId}`);

    const recovered = await recoverStaleWorkers({ deps });
    expect(recovered.workers).toEqual(["dead-process"]);

    const jobs = await deps.db.execute<{ id: string; attempts: number; max_attempts: number; key: string | null; locked_by: string | null }>(sql`
      select j.id::text, j.attempts, j.max_attempts, j.key, j.locked_by
        from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
       where k.identifier = 'send_email' and j.payload->>'outboxId' = ${outboxId}`);
    expect(jobs.map((row) => row.id)).not.toContain(stranded);
    expect(jobs).toEqual([expect.objectContaining({ attempts: 0, key: `email-to:${to}`, locked_by: null })]);
    const [message] = await deps.db.execute<{ status: string }>(sql`select status from email_outbox where id = ${outboxId}`);
    expect(message!.status).toBe("pending");
  });
});

describe("a dead worker's superseded dispatch job", () => {
  it("is removed, and the newer dispatch of the observatory stays to run", async () => {
    const { deps } = runtime;
    const observatoryId = "obs_superseded_dispatch";
    await inTransaction(deps, (t) => queueDispatch({ t, observatoryId }));
    const stranded = await strandOnDeadWorker(deps, sql`payload->>'observatoryId' = ${observatoryId}`);
    // What graphile-worker's add_job did when the dispatch was asked for again during the run.
    await inTransaction(deps, (t) => queueDispatch({ t, observatoryId }));

    const recovered = await recoverStaleWorkers({ deps });
    expect(recovered.workers).toEqual(["dead-process"]);

    const jobs = await deps.db.execute<{ id: string; attempts: number; key: string | null; locked_by: string | null }>(sql`
      select j.id::text, j.attempts, j.key, j.locked_by
        from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
       where k.identifier = 'dispatch_observatory' and j.payload->>'observatoryId' = ${observatoryId}`);
    expect(jobs.map((row) => row.id)).not.toContain(stranded);
    expect(jobs).toEqual([expect.objectContaining({ attempts: 0, key: `dispatch:${observatoryId}`, locked_by: null })]);
  });
});
