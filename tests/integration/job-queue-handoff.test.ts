import { connectDatabase, type DatabaseHandle } from "@meridian/db";
import { jobRegistry } from "@meridian/domain/job-registry";
import { enqueueEmail } from "@meridian/domain/platform";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import postgres from "postgres";
import { startSmtpCapture } from "../support/smtp-capture";
import { holdRows } from "../support/table-hold";
import { createTestDatabase } from "../support/test-database";
import { startTestServer, type TestServer } from "../support/test-server";
import { until } from "../support/until";

const SEND_EMAIL_TASK = jobRegistry.send_email.name;

let capture: Awaited<ReturnType<typeof startSmtpCapture>>;
let server: TestServer;
let database: DatabaseHandle;

beforeAll(async () => {
  capture = await startSmtpCapture();
  // Runners look for unannounced work only every ten minutes: within this file's timeouts, a job
  // runs only because something woke a runner for it.
  server = await startTestServer({ SMTP_URL: capture.url, JOBS_POLL_INTERVAL_SECONDS: "600" });
  database = connectDatabase(server.databaseUrl, { max: 2 });
});

afterAll(async () => {
  await database?.close();
  await server?.stop();
  await capture?.stop();
});

/** The send_email jobs left in a recipient's queue. */
async function queuedJobs(recipient: string) {
  const [row] = await database.db.execute<{ count: number }>(sql`
    select count(*)::int as count from graphile_worker._private_jobs j
      join graphile_worker._private_tasks t on t.id = j.task_id
      join graphile_worker._private_job_queues q on q.id = j.job_queue_id
     where t.identifier = ${SEND_EMAIL_TASK} and q.queue_name = ${`email:${recipient}`}`);
  return row!.count;
}

const subjectsTo = (recipient: string) => capture.messages.filter((message) => message.to.includes(recipient)).map((message) => message.subject);

describe("a job queue freed while a job waits in it", () => {
  it("runs the waiting job at once when a dead worker's hold on the queue is freed", async () => {
    const recipient = "freed.queue@example.com";
    // The recipient's queue is held in the name of a worker that died, as when its process was killed mid-job.
    await database.db.transaction(async (tx) => {
      await enqueueEmail({ t: { tx }, kind: "test", to: recipient, subject: "After the dead worker", text: "." });
      await tx.execute(sql`update graphile_worker._private_job_queues set locked_at = now(), locked_by = 'dead-worker'
                            where queue_name = ${`email:${recipient}`}`);
    });
    expect(await queuedJobs(recipient)).toBe(1);

    await database.db.execute(sql`select graphile_worker.force_unlock_workers(array['dead-worker'])`);

    await until("the waiting job to run", async () => (await queuedJobs(recipient)) === 0);
    expect(subjectsTo(recipient)).toEqual(["After the dead worker"]);
  });

  it("runs a queue's next job once the completion that frees the queue commits, however late", async () => {
    const recipient = "late.completion@example.com";
    capture.hold();
    await database.db.transaction((tx) => enqueueEmail({ t: { tx }, kind: "test", to: recipient, subject: "Held first", text: "." }));
    await until("the first email to reach the SMTP server", async () => capture.held() === 1);
    // The queue's row stays locked here: the first job's completion waits for it, and the runner
    // that looks for the next job at once finds the queue taken, as when a completion is slow to commit.
    const queue = await holdRows(server.databaseUrl, `select id from graphile_worker._private_job_queues where queue_name = 'email:${recipient}' for update`);
    try {
      // The running job cannot be sure to see this message, so a second job waits behind it in the queue.
      await database.db.transaction((tx) => enqueueEmail({ t: { tx }, kind: "test", to: recipient, subject: "Waiting second", text: "." }));
      expect(await queuedJobs(recipient)).toBe(2);
      capture.release();
      await until("the first job's completion to wait for the queue", () => queue.waiting());
    } finally {
      await queue.release();
    }

    await until("the second job to run", async () => (await queuedJobs(recipient)) === 0);
    expect(subjectsTo(recipient)).toEqual(["Held first", "Waiting second"]);
  });
});

describe("the NOTIFY sent when a job queue is freed", () => {
  // A database of its own, with no worker and no schedule on it: every NOTIFY seen here is the test's doing.
  let quiet: postgres.Sql;
  let listener: postgres.Sql;
  const heard: string[] = [];

  beforeAll(async () => {
    const { url } = await createTestDatabase();
    quiet = postgres(url, { max: 1, onnotice: () => undefined });
    listener = postgres(url, { max: 1, onnotice: () => undefined });
    await listener.listen("jobs:insert", (payload) => heard.push(payload));
  });

  afterAll(async () => {
    await listener?.end();
    await quiet?.end();
  });

  /** The NOTIFYs heard until the test's own marker arrives: NOTIFYs reach a listener in commit order. */
  async function heardUntilMarker() {
    const marker = `marker ${Math.random()}`;
    await quiet`select pg_notify('jobs:insert', ${marker})`;
    await until("the marker NOTIFY", async () => heard.includes(marker));
    return heard.splice(0).slice(0, -1);
  }

  async function queueHeldByDeadWorker(queue: string, runAt: "now" | "tomorrow" | "no job") {
    if (runAt !== "no job")
      await quiet`select graphile_worker.add_job('send_email', '{}'::json, queue_name => ${queue},
                    run_at => now() + ${runAt === "now" ? "0" : "1 day"}::interval)`;
    else await quiet`insert into graphile_worker._private_job_queues (queue_name) values (${queue})`;
    await quiet`update graphile_worker._private_job_queues set locked_at = now(), locked_by = 'dead-worker' where queue_name = ${queue}`;
    await heardUntilMarker();
  }

  it("announces a job that can run now", async () => {
    await queueHeldByDeadWorker("email:waiting@example.com", "now");
    await quiet`select graphile_worker.force_unlock_workers(array['dead-worker'])`;
    const announced = await heardUntilMarker();
    expect(announced).toHaveLength(1);
    expect(JSON.parse(announced[0]!)).toMatchObject({ count: 1 });
  });

  it("says nothing for a queue left empty or whose job is not due", async () => {
    await queueHeldByDeadWorker("email:nobody@example.com", "no job");
    await queueHeldByDeadWorker("email:later@example.com", "tomorrow");
    await quiet`select graphile_worker.force_unlock_workers(array['dead-worker'])`;
    expect(await heardUntilMarker()).toEqual([]);
  });

  it("announces nothing before the freeing transaction commits", async () => {
    await queueHeldByDeadWorker("email:rolled.back@example.com", "now");
    await quiet
      .begin(async (tx) => {
        await tx`select graphile_worker.force_unlock_workers(array['dead-worker'])`;
        await tx`select 1`.then(() => Promise.reject(new Error("roll back")));
      })
      .catch(() => undefined);
    expect(await heardUntilMarker()).toEqual([]);
  });

  it("looks for a freed queue's waiting job among that queue's jobs only, not every waiting job", async () => {
    // A backlog in other queues, as when thousands of emails wait for their recipients.
    await quiet`select graphile_worker.add_jobs(array(
                  select row('send_email', '{}'::json, 'email:backlog' || n || '@example.com', now(), null, null, null, null)::graphile_worker.job_spec
                    from generate_series(1, 5000) n))`;
    await quiet`analyze graphile_worker._private_jobs`;
    await queueHeldByDeadWorker("email:indexed@example.com", "now");
    // Counts as of the last statement: this connection's statistics are written as its next transaction ends.
    const scans = async () => {
      await quiet`select pg_stat_force_next_flush()`;
      const [row] = await quiet<{ sequential: number; indexed: number }[]>`
        select t.seq_scan::int as sequential, i.idx_scan::int as indexed
          from pg_stat_user_tables t, pg_stat_user_indexes i
         where t.relid = 'graphile_worker._private_jobs'::regclass and i.indexrelid = 'graphile_worker.meridian_available_jobs_by_queue'::regclass`;
      return row!;
    };
    const before = await scans();

    // graphile-worker's own release of a queue after its job completed.
    await quiet`update graphile_worker._private_job_queues set locked_at = null, locked_by = null where queue_name = 'email:indexed@example.com'`;

    expect(await heardUntilMarker()).toHaveLength(1);
    const after = await scans();
    expect(after.indexed).toBeGreaterThan(before.indexed);
    expect(after.sequential).toBe(before.sequential);
  });
});
