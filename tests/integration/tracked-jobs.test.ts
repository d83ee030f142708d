import { randomUUID } from "node:crypto";
import { inTransaction, publishEvent, reportJob } from "@meridian/domain/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcData } from "../support/json-api";
import { deleteRows, expectCursorRefused, expectTrpcCursorRefused, foreignCursors, trpcQuery } from "../support/list-cursors";
import { startSmtpCapture } from "../support/smtp-capture";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";
import { openWebSocket, type OpenClient } from "../support/ws-client";
import { recordHeldJob } from "../support/held-jobs";

const ADMIN = { email: "jobs-admin@example.com", password: "jobs admin password" };
interface Job {
  id: string;
  kind: string;
  status: string;
  progress: { done: number; total: number | null; stage: string | null };
  result: unknown;
  error: string | null;
  startedBy: string | null;
  subjectId: string | null;
  startedAt: string;
  finishedAt: string | null;
}

let capture: Awaited<ReturnType<typeof startSmtpCapture>>;
let server: TestServer;
let adminToken: string;
const sockets: OpenClient[] = [];
beforeAll(async () => {
  capture = await startSmtpCapture();
  // The worker runs in the server process, so the email fan-out really happens.
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all", SMTP_URL: capture.url }));
});
afterAll(async () => {
  for (const socket of sockets) await socket.close().catch(() => undefined);
  await server?.stop();
  await capture?.stop();
});
const { must } = jsonApi(() => server);
const socketOf = async (token: string) => {
  const socket = await openWebSocket(`${server.url.replace(/^http/, "ws")}/ws`, { authorization: `Bearer ${token}` });
  sockets.push(socket);
  return socket;
};
const jobOf = async (id: string) => (await must(`/api/v1/admin/jobs/${id}`, { token: adminToken }, 200)) as Job;

describe("a long job a person started: the email fan-out of an announcement", () => {
  it("is recorded, runs to completed with its progress and result, and reports job.progress to its starter and server admins only", async () => {
    const owner = await createAccount(server);
    const outsider = await createAccount(server);
    const members = await Promise.all(Array.from({ length: 4 }, () => createAccount(server)));
    const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: `Jobs ${randomUUID().slice(0, 8)}` } }, 201)) as {
      id: string;
    };
    for (const member of members)
      await must(`/projects/${project.id}/members`, { method: "POST", token: owner.token, json: { email: member.email, role: "member" } }, 201);
    const [ownerSocket, adminSocket, outsiderSocket] = await Promise.all([socketOf(owner.token), socketOf(adminToken), socketOf(outsider.token)]);

    const title = `Jobs ${randomUUID()}`;
    const created = (await must(
      `/projects/${project.id}/motd`,
      { method: "POST", token: owner.token, json: { title, message: "Tracked", severity: "info", deliveryType: "email" } },
      201,
    )) as { id: string };
    const listed = (await must(`/api/v1/admin/jobs?kind=announcement_emails`, { token: adminToken }, 200)) as { items: Job[] };
    const job = listed.items.find((item) => item.subjectId === created.id);
    expect(job).toMatchObject({ kind: "announcement_emails", startedBy: owner.id, progress: { total: 5 } });

    const finished = await until("the fan-out to complete", async () => {
      const current = await jobOf(job!.id);
      return current.status === "completed" && current;
    });
    expect(finished).toMatchObject({
      status: "completed",
      progress: { done: 5, total: 5, stage: "done" },
      result: { sent: 5, failed: 0, skipped: 0 },
      error: null,
    });
    expect(finished.finishedAt).not.toBeNull();
    await until("the five messages", async () => capture.messages.filter((message) => message.subject === title).length === 5);

    const progressOf = (socket: OpenClient) =>
      socket.messages.filter((message) => message.type === "job.progress" && (message.data as { id: string }).id === job!.id);
    for (const socket of [ownerSocket, adminSocket]) {
      await socket.waitFor(
        (message) => message.type === "job.progress" && (message.data as Job).id === job!.id && (message.data as Job).status === "completed",
        "the completed job.progress",
      );
      expect(progressOf(socket)[0]!.data).toMatchObject({ id: job!.id, kind: "announcement_emails", status: "queued" });
    }
    // A marker published after the job finished reaches the outsider last: nothing about the job came before it.
    await inTransaction(server.server.runtime.deps, (t) => publishEvent({ t, userIds: [outsider.id], event: { type: "test.marker", data: {} } }));
    await outsiderSocket.waitFor((message) => message.type === "test.marker");
    expect(progressOf(outsiderSocket)).toEqual([]);
  });
});

describe("the job record", () => {
  it("ends failed with its error, and a late report cannot bring a finished job back", async () => {
    const deps = server.server.runtime.deps;
    const job = await recordHeldJob(deps, { kind: "test_job", startedBy: null, total: 3 });
    await reportJob({ deps, jobId: job.id, progress: { done: 1, stage: "copying" } });
    expect(await jobOf(job.id)).toMatchObject({ status: "running", progress: { done: 1, total: 3, stage: "copying" } });
    await reportJob({ deps, jobId: job.id, status: "failed", error: "disk full" });
    expect(await reportJob({ deps, jobId: job.id, status: "completed", result: { late: true } })).toBeUndefined();
    expect(await jobOf(job.id)).toMatchObject({ status: "failed", error: "disk full", result: null });
  });

  it("pages newest first and filters by status", async () => {
    const deps = server.server.runtime.deps;
    const kind = `paging_${randomUUID().slice(0, 8)}`;
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) ids.push((await recordHeldJob(deps, { kind, startedBy: null })).id);
    await reportJob({ deps, jobId: ids[0]!, status: "completed", result: {} });
    const first = (await must(`/api/v1/admin/jobs?kind=${kind}&limit=2`, { token: adminToken }, 200)) as { items: Job[]; nextCursor: string | null };
    const second = (await must(`/api/v1/admin/jobs?kind=${kind}&limit=2&cursor=${first.nextCursor}`, { token: adminToken }, 200)) as {
      items: Job[];
      nextCursor: string | null;
    };
    expect([...first.items, ...second.items].map((item) => item.id)).toEqual([...ids].reverse());
    expect(second.nextCursor).toBeNull();
    const completed = (await must(`/api/v1/admin/jobs?kind=${kind}&status=completed`, { token: adminToken }, 200)) as { items: Job[] };
    expect(completed.items.map((item) => item.id)).toEqual([ids[0]]);
  });

  it("goes on past a job record removed since its page was read, and refuses a cursor it never gave", async () => {
    const deps = server.server.runtime.deps;
    const kind = `removed_${randomUUID().slice(0, 8)}`;
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) ids.unshift((await recordHeldJob(deps, { kind, startedBy: null })).id);
    const path = `/api/v1/admin/jobs?kind=${kind}`;
    const first = (await must(`${path}&limit=2`, { token: adminToken }, 200)) as { items: Job[]; nextCursor: string };
    expect(first.items.map((item) => item.id)).toEqual(ids.slice(0, 2));
    await deleteRows(server.databaseUrl, "jobs", [ids[1]!]);
    const second = (await must(`${path}&limit=2&cursor=${encodeURIComponent(first.nextCursor)}`, { token: adminToken }, 200)) as { items: Job[] };
    expect(second.items.map((item) => item.id)).toEqual(ids.slice(2, 4));
    const viaTrpc = await trpcData<{ items: Job[] }>(
      await server.request(trpcQuery("admin.jobs", { kind, limit: 2, cursor: first.nextCursor }), { token: adminToken }),
    );
    expect(viaTrpc.items.map((item) => item.id)).toEqual(ids.slice(2, 4));

    // A job's id was the cursor once; it no longer is one.
    for (const cursor of [...foreignCursors, ids[2]!]) {
      await expectCursorRefused(await server.request(`${path}&cursor=${encodeURIComponent(cursor)}`, { token: adminToken }));
      await expectTrpcCursorRefused(await server.request(trpcQuery("admin.jobs", { cursor }), { token: adminToken }));
    }
  });
});

describe("who may read jobs", () => {
  let member: Account;
  beforeAll(async () => {
    member = await createAccount(server);
  });

  it("refuses a caller without credentials (401) and one who is not a server admin (403), list and item alike", async () => {
    await expectProblem(await server.request("/api/v1/admin/jobs"), 401, "UNAUTHENTICATED");
    await expectProblem(await server.request("/api/v1/admin/jobs/job_x"), 401, "UNAUTHENTICATED");
    await expectProblem(await server.request("/api/v1/admin/jobs", { token: member.token }), 403, "FORBIDDEN");
    await expectProblem(await server.request("/api/v1/admin/jobs/job_x", { token: member.token }), 403, "FORBIDDEN");
  });

  it("answers an unknown job with 404 and bad filters with 400", async () => {
    await expectProblem(await server.request("/api/v1/admin/jobs/job_nothing", { token: adminToken }), 404, "NOT_FOUND");
    await expectProblem(await server.request("/api/v1/admin/jobs?status=paused", { token: adminToken }), 400, "VALIDATION_FAILED");
    await expectProblem(await server.request("/api/v1/admin/jobs?limit=0", { token: adminToken }), 400, "VALIDATION_FAILED");
    await expectProblem(await server.request("/api/v1/admin/jobs?cursor=job_unknown", { token: adminToken }), 400, "VALIDATION_FAILED");
  });
});
