import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { connectDatabase, emailOutboxCollection, type DatabaseHandle } from "@meridian/db";
import { jobRegistry } from "@meridian/domain/job-registry";
import { enqueueEmail } from "@meridian/domain/platform";
import { sql } from "drizzle-orm";
import PostalMime from "postal-mime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRunning, spawnEntry, terminate, waitForOutput, type NodeProcess } from "../support/node-process";
import { startSmtpCapture, type CapturedMail } from "../support/smtp-capture";
import { sharedProcessEnv, startTestServer, type TestServer } from "../support/test-server";
import { until } from "../support/until";

const SEND_EMAIL_TASK = jobRegistry.send_email.name;

const ADMIN_EMAIL = "Admin.Start@Example.com";
const ADMIN_PASSWORD = "admin password 1";

let capture: Awaited<ReturnType<typeof startSmtpCapture>>;
let server: TestServer;
let database: DatabaseHandle;
const workers: NodeProcess[] = [];

/** Adds a job directly (as another process would) and returns its id. */
async function addRawJob(payload: unknown, maxAttempts = 1): Promise<string> {
  const rows = await database.db.execute<{ id: string }>(
    sql`select (graphile_worker.add_job(${SEND_EMAIL_TASK}, ${JSON.stringify(payload)}::json, max_attempts => ${maxAttempts}::int)).id::text as id`,
  );
  return rows[0]!.id;
}

async function job(id: string) {
  const rows = await database.db.execute<{ attempts: number; max_attempts: number; last_error: string | null; locked_at: Date | null }>(
    sql`select attempts, max_attempts, last_error, locked_at from graphile_worker.jobs where id = ${id}::bigint`,
  );
  return rows[0];
}

/** Waits until the job has been run and either succeeded (row gone) or failed for good. */
async function settled(id: string) {
  return until(`job ${id} to settle`, async () => {
    const row = await job(id);
    if (!row) return { outcome: "succeeded" as const };
    if (row.locked_at === null && row.attempts >= row.max_attempts) return { outcome: "failed" as const, lastError: row.last_error };
    return undefined;
  });
}

const subjectOf = (suffix: string) => `Worker test ${suffix}`;

beforeAll(async () => {
  capture = await startSmtpCapture();
  server = await startTestServer({ SMTP_URL: capture.url, ADMIN_EMAIL, ADMIN_PASSWORD });
  database = connectDatabase(server.databaseUrl, { max: 2 });
});

afterAll(async () => {
  for (const worker of workers) if (isRunning(worker)) await terminate(worker, 10_000);
  await database?.close();
  await server?.stop();
  await capture?.stop();
});

/** A refused email waits e^attempts seconds for its next attempt: this brings waiting jobs forward until stopped. */
function accelerateRetries() {
  let accelerating = true;
  const accelerator = (async () => {
    while (accelerating) {
      await database.db.execute(sql`update graphile_worker._private_jobs set run_at = now() where locked_at is null and run_at > now()`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return async () => {
    accelerating = false;
    await accelerator;
  };
}

/** A second worker process over the test server's database, as `pnpm start:worker` runs it. */
async function startWorkerProcess(name: string) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-email-worker-"));
  const worker = spawnEntry("worker", { ...sharedProcessEnv(server, dataDir), SMTP_URL: capture.url, LOG_LEVEL: "info" }, name);
  workers.push(worker);
  await waitForOutput(worker, /Meridian worker running/);
  return worker;
}

const sentTo = (address: string, messages: CapturedMail[] = capture.messages) =>
  messages.filter((message) => message.to.some((to) => to.toLowerCase() === address.toLowerCase())).map((message) => message.subject);

/** The send_email jobs queued for one recipient, as `tx` sees them. */
async function emailJobsFor(tx: Pick<DatabaseHandle["db"], "execute">, address: string) {
  const [row] = await tx.execute<{ count: number }>(sql`
    select count(*)::int as count from graphile_worker._private_jobs j
      join graphile_worker._private_tasks t on t.id = j.task_id
      join graphile_worker._private_job_queues q on q.id = j.job_queue_id
     where t.identifier = ${SEND_EMAIL_TASK} and q.queue_name = ${`email:${address.toLowerCase()}`}`);
  return row!.count;
}

describe("email outbox delivered by the worker over SMTP", () => {
  it("mails every server admin when the server starts", async () => {
    const messages = await capture.waitFor((all) => all.some((message) => message.subject?.includes("started on")));
    const started = messages.filter((message) => message.subject?.includes("started on"));
    expect(started).toHaveLength(1);
    expect(started[0]!.to.map((address) => address.toLowerCase())).toEqual([ADMIN_EMAIL.toLowerCase()]);
    expect(started[0]!.subject).toMatch(/^Meridian \S+ started on \S+/);
    expect(started[0]!.from).toBe("no-reply@meridian.local");
    expect(started[0]!.text).toContain(server.url);
    expect(started[0]!.messageId).toMatch(/^<[^@]+@meridian>$/);
  });

  it("sends nothing for an email enqueued in a transaction that rolls back", async () => {
    const suffix = randomBytes(4).toString("hex");
    await expect(
      database.db.transaction(async (tx) => {
        await enqueueEmail({ t: { tx }, kind: "test", to: "rollback@example.com", subject: subjectOf(`rolled back ${suffix}`), text: "never" });
        throw new Error("abort");
      }),
    ).rejects.toThrow("abort");
    const committedId = await database.db.transaction((tx) =>
      enqueueEmail({ t: { tx }, kind: "test", to: "committed@example.com", subject: subjectOf(`committed ${suffix}`), text: "yes" }),
    );
    await capture.waitFor((all) => all.some((message) => message.subject === subjectOf(`committed ${suffix}`)));
    expect(capture.messages.filter((message) => message.subject === subjectOf(`rolled back ${suffix}`))).toEqual([]);
    // The worker marks the row sent once the SMTP server has accepted the message, a moment after the capture sees it.
    await until("the committed email to be marked sent", async () => (await emailOutboxCollection.get(database.db, committedId))?.doc.status === "sent");
    // Neither an outbox row nor a job survived the rollback.
    const leftovers = await database.db.execute<{ count: number }>(
      sql`select count(*)::int as count from email_outbox where doc->>'subject' = ${subjectOf(`rolled back ${suffix}`)}`,
    );
    expect(leftovers[0]!.count).toBe(0);
  });

  it("retries a refused message and delivers it exactly once", async () => {
    const suffix = randomBytes(4).toString("hex");
    const subject = subjectOf(`retried ${suffix}`);
    capture.failNext(2);
    const outboxId = await database.db.transaction((tx) =>
      enqueueEmail({ t: { tx }, kind: "test", to: "retry@example.com", subject, text: "after two refusals" }),
    );

    const stop = accelerateRetries();
    try {
      await capture.waitFor((all) => all.some((message) => message.subject === subject), 30_000);
    } finally {
      await stop();
    }
    const stored = await until("the outbox row to be marked sent", async () => {
      const row = await emailOutboxCollection.get(database.db, outboxId);
      return row?.doc.status === "sent" ? row : undefined;
    });
    expect(stored.doc.attempts).toBe(3);
    expect(stored.doc.lastError).toBeNull();
    expect(stored.doc.messageId).toBe(`<${outboxId}@meridian>`);
    const delivered = capture.messages.filter((message) => message.subject === subject);
    expect(delivered).toHaveLength(1);
    expect(delivered[0]!.messageId).toBe(`<${outboxId}@meridian>`);

    // Running the send job again for the already-sent row sends no second copy.
    const again = await addRawJob({ outboxId });
    expect(await settled(again)).toEqual({ outcome: "succeeded" });
    expect(capture.messages.filter((message) => message.subject === subject)).toHaveLength(1);
    expect((await emailOutboxCollection.get(database.db, outboxId))?.doc.attempts).toBe(3);
  });

  it("fails a send_email job with a bad payload without sending anything", async () => {
    const subject = subjectOf(`bad payload ${randomBytes(4).toString("hex")}`);
    // A real pending message, but the jobs below do not name it correctly.
    const pending = await emailOutboxCollection.insert(database.db, {
      kind: "test",
      to: "bad-payload@example.com",
      subject,
      text: "must not be sent by a malformed job",
      html: null,
      replyTo: null,
      status: "pending",
      attempts: 0,
      sentAt: null,
      messageId: null,
      lastError: null,
    });
    for (const payload of [{ outbox: pending.id }, { outboxId: 12345 }, { outboxId: "" }, [pending.id]]) {
      const id = await addRawJob(payload);
      const result = await settled(id);
      expect(result.outcome).toBe("failed");
      expect(result).toMatchObject({ lastError: expect.stringContaining(`invalid payload for ${SEND_EMAIL_TASK}`) });
    }
    expect(capture.messages.filter((message) => message.subject === subject)).toEqual([]);
    const untouched = await emailOutboxCollection.get(database.db, pending.id);
    expect(untouched?.doc).toMatchObject({ status: "pending", attempts: 0 });

    // The same message with a well-formed job goes out: the failures above were the payloads'.
    const good = await addRawJob({ outboxId: pending.id });
    expect(await settled(good)).toEqual({ outcome: "succeeded" });
    expect(capture.messages.filter((message) => message.subject === subject)).toHaveLength(1);
  });
});

describe("a recipient's messages", () => {
  it("written in a burst make one delivery job, and arrive in the order written whatever the address's case", async () => {
    const suffix = randomBytes(4).toString("hex");
    const to = `burst-${suffix}@example.com`;
    const subjects = Array.from({ length: 30 }, (_, index) => subjectOf(`burst ${suffix} ${index}`));
    await database.db.transaction(async (tx) => {
      for (const [index, subject] of subjects.entries()) {
        await enqueueEmail({ t: { tx }, kind: "test", to: index % 3 === 0 ? to.toUpperCase() : to, subject, text: `message ${index}` });
      }
      // One job sends them all: not one per message, as when each email was its own job.
      expect(await emailJobsFor(tx, to)).toBe(1);
    });
    await capture.waitFor((all) => sentTo(to, all).length >= subjects.length);
    expect(sentTo(to)).toEqual(subjects);
  });

  it("keep their order across two worker processes and a refusal, which holds up no other recipient", async () => {
    await startWorkerProcess("second email worker");
    const suffix = randomBytes(4).toString("hex");
    const [held, other] = [`held-${suffix}@example.com`, `other-${suffix}@example.com`];
    const count = 40;
    const subjectsOf = (address: string) => Array.from({ length: count }, (_, index) => subjectOf(`${address} ${index}`));
    // The held recipient's third message is refused ("try later") until the rule is lifted below.
    capture.failAfter(2, 6, (mail) => mail.to.includes(held));
    for (let index = 0; index < count; index += 1) {
      for (const to of [held, other])
        await database.db.transaction((tx) => enqueueEmail({ t: { tx }, kind: "test", to, subject: subjectsOf(to)[index]!, text: `message ${index}` }));
    }
    await capture.waitFor((all) => sentTo(other, all).length >= count, 30_000);
    await until("the held message to be refused", async () => capture.refused.some((mail) => mail.subject === subjectsOf(held)[2]));
    // Nothing of the held recipient's overtook the refused message, and the other recipient got everything.
    expect(sentTo(held)).toEqual(subjectsOf(held).slice(0, 2));
    expect(sentTo(other)).toEqual(subjectsOf(other));

    capture.failAfter(0, 0);
    const stop = accelerateRetries();
    try {
      await capture.waitFor((all) => sentTo(held, all).length >= count, 30_000);
    } finally {
      await stop();
    }
    expect(sentTo(held)).toEqual(subjectsOf(held));
    // A message is marked sent after SMTP accepted it, by the process's batched writer: wait for the marks.
    const rows = await until("every held message to be marked sent", async () => {
      const all = await database.db.execute<{ status: string; attempts: number }>(
        sql`select status, (doc->>'attempts')::int as attempts from email_outbox where recipient = ${held} order by seq`,
      );
      return all.every((row) => row.status !== "pending") && all;
    });
    expect(rows.map((row) => row.status)).toEqual(Array(count).fill("sent"));
    expect(rows[2]!.attempts).toBeGreaterThan(1);
  });

  it("for many recipients waiting on a slow mail server hold up no other job", async () => {
    const suffix = randomBytes(4).toString("hex");
    const recipients = Array.from({ length: 6 }, (_, index) => `slow-${index}-${suffix}@example.com`);
    capture.hold();
    try {
      for (const to of recipients)
        await database.db.transaction((tx) => enqueueEmail({ t: { tx }, kind: "test", to, subject: subjectOf(`slow ${suffix}`), text: "waits" }));
      // More recipients are being sent to at once than the worker runs other jobs (WORKER_CONCURRENCY, 4).
      await until("six messages waiting for the mail server", async () => capture.held() >= recipients.length);
      const [job] = await database.db.execute<{ id: string }>(sql`select (graphile_worker.add_job('prune_rate_limits', '{}'::json)).id::text as id`);
      await until(
        "another job to run meanwhile",
        async () => (await database.db.execute(sql`select 1 from graphile_worker._private_jobs where id = ${job!.id}::bigint`)).length === 0,
      );
    } finally {
      capture.release();
    }
    await capture.waitFor((all) => all.filter((mail) => mail.subject === subjectOf(`slow ${suffix}`)).length >= recipients.length);
  });

  it("give up on a message refused for good (5xx) and go on with the next ones", async () => {
    const suffix = randomBytes(4).toString("hex");
    const to = `refused-${suffix}@example.com`;
    const subjects = Array.from({ length: 5 }, (_, index) => subjectOf(`refused ${suffix} ${index}`));
    capture.failAfter(1, 1, (mail) => mail.to.includes(to), 550);
    const ids: string[] = [];
    await database.db.transaction(async (tx) => {
      for (const subject of subjects) ids.push(await enqueueEmail({ t: { tx }, kind: "test", to, subject, text: "refused or not" }));
    });
    await capture.waitFor((all) => sentTo(to, all).length >= 4);
    expect(sentTo(to)).toEqual([subjects[0], ...subjects.slice(2)]);
    const refused = await until("the refused message to be marked failed", async () => {
      const row = await emailOutboxCollection.get(database.db, ids[1]!);
      return row?.doc.status === "failed" ? row : undefined;
    });
    expect(refused.doc).toMatchObject({ attempts: 1, lastError: expect.stringContaining("permanent failure"), sentAt: null });
    await until("the others to be marked sent", async () => {
      const statuses = await Promise.all(ids.map(async (id) => (await emailOutboxCollection.get(database.db, id))?.doc.status));
      return statuses.join() === "sent,failed,sent,sent,sent";
    });
  });
});

describe("email outbox retention", () => {
  it("the daily prune_email_outbox removes mail sent or given up more than EMAIL_OUTBOX_KEEP_DAYS ago, never pending mail", async () => {
    const suffix = randomBytes(4).toString("hex");
    const write = async (status: "pending" | "sent" | "failed", ageDays: number) => {
      const doc = { kind: "test", to: `kept-${suffix}@example.com`, subject: subjectOf(`${status} ${ageDays}d ${suffix}`), text: "old" };
      const row = await emailOutboxCollection.insert(database.db, {
        ...doc,
        html: null,
        replyTo: null,
        status,
        attempts: status === "pending" ? 0 : 1,
        sentAt: status === "sent" ? new Date().toISOString() : null,
        messageId: null,
        lastError: status === "failed" ? "550 refused" : null,
      });
      await database.db.execute(sql`update email_outbox set updated_at = now() - make_interval(days => ${ageDays}) where id = ${row.id}`);
      return row.id;
    };
    const oldSent = await write("sent", 31);
    const oldFailed = await write("failed", 40);
    const oldPending = await write("pending", 45);
    const recentSent = await write("sent", 29);
    await database.db.execute(sql`select graphile_worker.add_job('prune_email_outbox', '{}'::json)`);
    await until("the old sent and failed mail to be removed", async () => {
      const left = await database.db.execute<{ id: string }>(sql`select id from email_outbox where id in ${[oldSent, oldFailed]}`);
      return left.length === 0;
    });
    const kept = await database.db.execute<{ id: string }>(sql`select id from email_outbox where id in ${[oldPending, recentSent]}`);
    expect(kept.map((row) => row.id).sort()).toEqual([oldPending, recentSent].sort());
  });
});

describe("email outbox without SMTP_URL", () => {
  it("writes the server start email as an .eml file under DATA_DIR/mail", async () => {
    const fileServer = await startTestServer({ ADMIN_EMAIL: "files-admin@example.com", ADMIN_PASSWORD });
    try {
      const mailDir = path.join(fileServer.dataDir, "mail");
      const files = await until("an .eml file", async () => {
        const names = await fs.readdir(mailDir).catch(() => [] as string[]);
        return names.some((name) => name.endsWith(".eml")) ? names : undefined;
      });
      expect(files.filter((name) => name.endsWith(".eml"))).toHaveLength(1);
      const raw = await fs.readFile(
        path.join(
          mailDir,
          files.find((name) => name.endsWith(".eml"))!,
        ),
        "utf8",
      );
      const parsed = await PostalMime.parse(raw);
      expect(parsed.to?.map((address) => address.address)).toEqual(["files-admin@example.com"]);
      expect(parsed.subject).toMatch(/^Meridian \S+ started on \S+/);
      expect(parsed.text).toContain(fileServer.url);
      // Marked sent after the file was written, by the batched writer: wait for the mark.
      const outbox = await until("the start email to be marked", async () => {
        const rows = await fileServerOutbox(fileServer.databaseUrl);
        return rows.every((row) => row.status !== "pending") && rows;
      });
      expect(outbox).toEqual([{ status: "sent", to: "files-admin@example.com" }]);
      // Nothing went to the SMTP capture of the other server.
      expect(capture.messages.some((message) => message.to.includes("files-admin@example.com"))).toBe(false);
    } finally {
      await fileServer.stop();
    }
  });
});

async function fileServerOutbox(databaseUrl: string) {
  const handle = connectDatabase(databaseUrl, { max: 1 });
  try {
    const rows = await handle.db.execute<{ status: string; to: string }>(sql`select status, doc->>'to' as to from email_outbox`);
    return rows.map((row) => ({ status: row.status, to: row.to }));
  } finally {
    await handle.close();
  }
}
