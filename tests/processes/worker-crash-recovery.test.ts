import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { newId, usersCollection } from "@meridian/db";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { isRunning, spawnEntry, terminate, waitForOutput, type NodeProcess } from "../support/node-process";
import { startSmtpCapture } from "../support/smtp-capture";
import { sharedProcessEnv, type TestServer } from "../support/test-server";
import { until } from "../support/until";

const ADMIN = { email: "crash-admin@example.com", password: "crash admin password" };
const RECIPIENTS = 2_000;

let capture: Awaited<ReturnType<typeof startSmtpCapture>>;
let server: TestServer;
let adminToken: string;
const workers: NodeProcess[] = [];
beforeAll(async () => {
  capture = await startSmtpCapture();
  // HTTP only: the email fan-out is done by the worker processes this test starts and kills.
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { SMTP_URL: capture.url }));
});
afterAll(async () => {
  for (const worker of workers) if (isRunning(worker)) await terminate(worker, 10_000);
  await server?.stop();
  await capture?.stop();
});
const { must } = jsonApi(() => server);

/** A worker process over the test server's database and object storage, as `pnpm start:worker` runs it. */
async function startWorkerProcess(name: string) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-crash-worker-"));
  const worker = spawnEntry(
    "worker",
    { ...sharedProcessEnv(server, dataDir), SMTP_URL: capture.url, MAIL_FROM: server.env.MAIL_FROM, LOG_LEVEL: "info" },
    name,
  );
  workers.push(worker);
  await waitForOutput(worker, /Meridian worker running/);
  return worker;
}

/** Accounts made in bulk, straight into the users collection: 2,000 sign-ups would spend minutes hashing passwords. */
async function createRecipients(count: number, tag: string) {
  const db = server.server.runtime.deps.db;
  const ids: string[] = [];
  await db.transaction(async (tx) => {
    for (let index = 0; index < count; index += 1) {
      const id = newId("usr");
      ids.push(id);
      await usersCollection.insert(
        tx,
        {
          email: `crash-${tag}-${index}@example.com`,
          name: `Recipient ${index}`,
          passwordHash: "not-a-password",
          roles: [],
          notificationPreferences: { email: true, push: false, systemEvents: true, observationEvents: true },
          avatar: null,
        },
        id,
      );
    }
  });
  return ids;
}

describe("a worker killed (-9) in the middle of an email fan-out", () => {
  it("is found dead by another worker, which frees its jobs and claims; every recipient gets exactly one message", async () => {
    const tag = randomUUID().slice(0, 8);
    const recipients = await createRecipients(RECIPIENTS, tag);
    const doomed = await startWorkerProcess("doomed worker");
    const title = `Crash ${tag}`;
    await must(
      "/api/v1/system/motd",
      {
        method: "POST",
        token: adminToken,
        json: { title, message: "Sent once each", severity: "info", deliveryType: "email", targets: { users: { ids: recipients } } },
      },
      201,
    );
    const received = () => capture.messages.filter((message) => message.subject === title);
    await until("the fan-out to be under way", async () => received().length >= 100);
    // Killed while the mail server holds every message in flight unanswered: no message is both
    // accepted and not yet recorded as sent, the one instant a crash cannot be exactly-once (its
    // repeat carries the same Message-ID, by which mail systems drop it).
    capture.hold();
    const deps = server.server.runtime.deps;
    await until("every running email job to wait on the mail server", async () => {
      const [running] = await deps.db.execute<{ locked: number }>(
        sql`select count(*)::int as locked from graphile_worker._private_jobs where locked_by is not null`,
      );
      return running!.locked > 0 && capture.held() === running!.locked;
    });
    doomed.child.kill("SIGKILL");
    await doomed.exited;
    await until("the dead worker's mail connections to close", async () => capture.openSessions() === 0);
    capture.release();
    const sentBeforeCrash = received().length;
    expect(sentBeforeCrash).toBeLessThan(RECIPIENTS);

    // What the dead worker held: its graphile-worker ids (in its heartbeat), jobs locked by them, and claimed rows.
    const [heartbeat] = await deps.db.execute<{ ids: string[] }>(sql`select graphile_worker_ids as ids from worker_heartbeats`);
    const deadIds = heartbeat!.ids;
    expect(deadIds.length).toBeGreaterThan(0);

    await startWorkerProcess("survivor worker");
    const everyone = await until("every recipient to have a message", async () => received().length >= RECIPIENTS && received(), { timeoutMs: 240_000 });
    const perRecipient = new Map<string, number>();
    for (const message of everyone) for (const to of message.to) perRecipient.set(to, (perRecipient.get(to) ?? 0) + 1);
    expect(perRecipient.size).toBe(RECIPIENTS);
    expect([...perRecipient.values()].every((count) => count === 1)).toBe(true);

    // The survivor freed what the dead one held rather than waiting out the lock and the lease.
    const dead = sql`array(select jsonb_array_elements_text(${JSON.stringify(deadIds)}::jsonb))`;
    const [left] = await deps.db.execute<{ heartbeats: number; locked: number; claimed: number }>(sql`
      select (select count(*)::int from worker_heartbeats where graphile_worker_ids && ${dead}) as heartbeats,
             (select count(*)::int from graphile_worker._private_jobs where locked_by = any(${dead})) as locked,
             (select count(*)::int from announcement_recipients where email_claimed_by = any(${dead})) as claimed`);
    expect(left).toEqual({ heartbeats: 0, locked: 0, claimed: 0 });
  }, 300_000);
});
