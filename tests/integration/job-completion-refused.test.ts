import { connectDatabase, type DatabaseHandle } from "@meridian/db";
import { enqueueEmail } from "@meridian/domain/platform";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSmtpCapture } from "../support/smtp-capture";
import { startTestServer, type TestServer } from "../support/test-server";
import { until } from "../support/until";

let capture: Awaited<ReturnType<typeof startSmtpCapture>>;
let server: TestServer;
let database: DatabaseHandle;

beforeAll(async () => {
  capture = await startSmtpCapture();
  // The server runs the worker in its own process (MERIDIAN_ROLE=all): a job runner that dies
  // there takes the HTTP server with it.
  server = await startTestServer({ SMTP_URL: capture.url });
  database = connectDatabase(server.databaseUrl, { max: 2 });
});

afterAll(async () => {
  await database?.close();
  await server?.stop();
  await capture?.stop();
});

const queueOf = (recipient: string) => `email:${recipient}`;

/** The first time a job of the recipient's queue is completed, PostgreSQL refuses it, as a failing database would. */
async function refuseFirstCompletion(recipient: string) {
  await database.db.execute(
    sql.raw(`
    create sequence completion_refusals;
    create function refuse_first_completion() returns trigger language plpgsql as $$
    begin
      if old.job_queue_id = (select id from graphile_worker._private_job_queues where queue_name = '${queueOf(recipient)}')
         and nextval('completion_refusals') = 1 then
        raise exception 'completion refused by the test';
      end if;
      return old;
    end $$;
    create trigger refuse_first_completion before delete on graphile_worker._private_jobs
      for each row execute function refuse_first_completion();`),
  );
}

/** The first time a dead worker's heartbeat is removed (freeing its jobs), PostgreSQL refuses it too. */
async function refuseFirstRecovery() {
  await database.db.execute(
    sql.raw(`
    create sequence recovery_refusals;
    create function refuse_first_recovery() returns trigger language plpgsql as $$
    begin
      if nextval('recovery_refusals') = 1 then raise exception 'recovery refused by the test'; end if;
      return old;
    end $$;
    create trigger refuse_first_recovery before delete on worker_heartbeats
      for each row execute function refuse_first_recovery();`),
  );
}

const lastValue = async (sequence: "completion_refusals" | "recovery_refusals") => {
  const [row] = await database.db.execute<{ value: string; called: boolean }>(
    sql.raw(`select last_value::text as value, is_called as called from ${sequence}`),
  );
  return row!.called ? Number(row!.value) : 0;
};

async function jobsOfQueue(recipient: string) {
  const [row] = await database.db.execute<{ count: number }>(sql`
    select count(*)::int as count from graphile_worker._private_jobs j
      join graphile_worker._private_job_queues q on q.id = j.job_queue_id
     where q.queue_name = ${queueOf(recipient)}`);
  return row!.count;
}

const sendTo = (recipient: string, subject: string) =>
  database.db.transaction((tx) => enqueueEmail({ t: { tx }, kind: "test", to: recipient, subject, text: "." }));

describe("a job whose completion the database refuses", () => {
  it("is run again, even when freeing it fails at first, and the process keeps serving and running jobs", async () => {
    const refused = "refused.completion@example.com";
    await refuseFirstCompletion(refused);
    await refuseFirstRecovery();

    await sendTo(refused, "Completion refused");
    await until("the refused completion", async () => (await lastValue("completion_refusals")) >= 1);
    // Its runner stopped; the process gives up the runner's presence and runs the job again under
    // new runners. The job is freed either by graphile-worker's own stop of the broken pool or by
    // recovery removing the old runner's heartbeat, whichever comes first; that removal, which
    // PostgreSQL refuses once, is tried again until it holds (CI run 55 saw the job end first).
    await until("the job to run again and end", async () => (await jobsOfQueue(refused)) === 0);
    await until("the old runner's heartbeat removed at the second try", async () => (await lastValue("recovery_refusals")) >= 2);

    // The message went out (once or, when its 'sent' mark was not written before the rerun, twice)
    // and its job is gone rather than locked for graphile-worker's four hours.
    expect(capture.messages.filter((message) => message.to.includes(refused)).length).toBeGreaterThanOrEqual(1);
    const outbox = await until("the message's 'sent' mark", async () => {
      const rows = await database.db.execute<{ status: string }>(sql`select status from email_outbox where recipient = ${refused}`);
      return rows.every((row) => row.status !== "pending") && rows;
    });
    expect(outbox.map((row) => row.status)).toEqual(["sent"]);

    // The same process still answers requests and runs later jobs.
    expect((await server.request("/api/health/live")).status).toBe(200);
    const later = "after.refusal@example.com";
    await sendTo(later, "After the refusal");
    await until("the later email's job to end", async () => (await jobsOfQueue(later)) === 0);
    expect(capture.messages.filter((message) => message.to.includes(later)).map((message) => message.subject)).toEqual(["After the refusal"]);
  });
});
