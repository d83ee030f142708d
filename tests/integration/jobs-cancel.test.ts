import { filesCollection, observationsCollection } from "@meridian/db";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { runAdminCli } from "../support/admin-cli";
import { fileDocument, observationDocument } from "../support/observation-documents";
import { holdRows, holdTable } from "../support/table-hold";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

// POST /api/v1/admin/jobs/{id}/cancel and `pnpm admin jobs cancel`: the way out of a job that will not finish.
const ADMIN = { email: "cancel-admin@example.com", password: "cancel admin password" };
let server: TestServer;
let adminToken: string;
let owner: Account;
const { must, call, jobToEnd } = jsonApi(() => server);

beforeAll(async () => {
  // The worker runs in this process, so the jobs cancelled here are really under way.
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all" }));
  owner = await createAccount(server);
  await must("/projects", { method: "POST", token: owner.token, json: { name: "Before the backup" } }, 201);
});
afterAll(() => server?.stop());

interface Job {
  id: string;
  kind: string;
  status: string;
  error: string | null;
}

/** The graphile-worker job doing the work has ended (no row, or no lock and no attempts left). */
const attemptEnded = async (ref: string) => {
  const [row] = await server.server.runtime.deps.db.execute<{ running: boolean }>(sql`
    select locked_at is not null or attempts < max_attempts as running from graphile_worker._private_jobs
     where payload->>'jobId' = ${ref} or payload->>'scanId' = ${ref}`);
  return !row?.running;
};

const cancel = (jobId: string, token = adminToken) => call(`/api/v1/admin/jobs/${jobId}/cancel`, { method: "POST", token });

async function objectsUnder(prefix: string) {
  const keys: string[] = [];
  for await (const page of server.server.runtime.deps.storage.list(prefix)) keys.push(...page.map((object) => object.key));
  return keys;
}

describe("cancelling a long job", () => {
  let backupId: string;

  it("ends a running restore at once: maintenance off, writes accepted, and the attempt stops without swapping anything in", async () => {
    const backup = (await must("/api/v1/admin/backups", { method: "POST", token: adminToken }, 202)) as { id: string; jobId: string };
    await jobToEnd<Job>(backup.jobId, adminToken, 120_000);
    backupId = backup.id;
    await must("/projects", { method: "POST", token: owner.token, json: { name: "After the backup" } }, 201);

    const hold = await holdTable(server.databaseUrl, "push_subscriptions");
    let jobId: string;
    try {
      ({ jobId } = (await must(`/api/v1/admin/backups/${backupId}/restore`, { method: "POST", token: adminToken }, 202)) as { jobId: string });
      await until("the restore to wait halfway through its load", hold.waiting);
      expect(await must("/api/v1/maintenance", {}, 200)).toMatchObject({ active: true, jobId });

      const cancelled = await cancel(jobId);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toMatchObject({ id: jobId, status: "failed", error: expect.stringMatching(/^Cancelled by .+ \(cancel-admin@example\.com\)$/) });
      expect(await must("/api/v1/maintenance", {}, 200)).toMatchObject({ active: false });
      // Whatever the status code, which also carries the object store's ping (a loaded machine can time it out).
      expect((await call("/api/health")).body).toMatchObject({ maintenance: { active: false } });
      // Accepted while the cancelled attempt still waits: the restore must never swap in over it.
      await must("/projects", { method: "POST", token: owner.token, json: { name: "After the cancel" } }, 201);
    } finally {
      await hold.release();
    }
    await until("the cancelled attempt to stop", () => attemptEnded(jobId));
    expect(await must(`/api/v1/admin/jobs/${jobId}`, { token: adminToken }, 200)).toMatchObject({ status: "failed" });
    const names = ((await must("/projects", { token: owner.token }, 200)) as { items: Array<{ name: string }> }).items.map((item) => item.name).sort();
    expect(names).toEqual(["After the backup", "After the cancel", "Before the backup"]);
    const schemas = await server.server.runtime.deps.db.execute(
      sql`select nspname from pg_namespace where nspname in ('meridian_restore', 'meridian_previous')`,
    );
    expect(schemas).toEqual([]);

    const audit = (await must(`/api/v1/admin/audit?limit=200`, { token: adminToken }, 200)) as {
      items: Array<{ action: string; target: { id: string } }>;
    };
    expect(audit.items.find((entry) => entry.action === "job.cancelled" && entry.target.id === jobId)).toBeDefined();

    // Ended once: a second cancel is a conflict.
    await expectProblem(await server.request(`/api/v1/admin/jobs/${jobId}/cancel`, { method: "POST", token: adminToken }), 409, "JOB_FINISHED");
  }, 180_000);

  it("ends a restore cancelled as it begins its maintenance: the attempt stops, and the server is never left in maintenance", async () => {
    // An uncommitted maintenance row of the same key: the restore's beginning waits on it; nothing else sees it.
    const hold = await holdRows(server.databaseUrl, "insert into maintenance (id, reason) values ('restore', 'held by the test') returning id");
    let jobId: string;
    try {
      ({ jobId } = (await must(`/api/v1/admin/backups/${backupId}/restore`, { method: "POST", token: adminToken }, 202)) as { jobId: string });
      await until("the restore to begin its maintenance", hold.waiting);
      expect((await cancel(jobId)).body).toMatchObject({ id: jobId, status: "failed" });
      expect(await must("/api/v1/maintenance", {}, 200)).toMatchObject({ active: false });
    } finally {
      await hold.release();
    }
    await until("the cancelled attempt to stop", () => attemptEnded(jobId), { timeoutMs: 120_000 });
    expect(await must(`/api/v1/admin/jobs/${jobId}`, { token: adminToken }, 200)).toMatchObject({ status: "failed" });
    // What the cancel gave back stays given back: no maintenance outlives the cancelled job.
    expect(await must("/api/v1/maintenance", {}, 200)).toMatchObject({ active: false });
    await must("/projects", { method: "POST", token: owner.token, json: { name: "After the second cancel" } }, 201);
  }, 180_000);

  it("ends a running backup at once, and its attempt stops at its next report leaving none of the backup's objects", async () => {
    // The backup's COPY reaches this table and waits there, halfway through writing its archive.
    const hold = await holdTable(server.databaseUrl, "push_subscriptions");
    let backup: { id: string; jobId: string };
    try {
      backup = (await must("/api/v1/admin/backups", { method: "POST", token: adminToken }, 202)) as { id: string; jobId: string };
      await until("the backup to wait halfway through its archive", hold.waiting);
      expect((await cancel(backup.jobId)).body).toMatchObject({ status: "failed" });
      expect(await must(`/api/v1/admin/backups/${backup.id}`, { token: adminToken }, 200)).toMatchObject({ status: "failed" });
    } finally {
      await hold.release();
    }
    await until("the cancelled backup's attempt to stop", () => attemptEnded(backup.jobId), { timeoutMs: 60_000 });
    expect(await must(`/api/v1/admin/backups/${backup.id}`, { token: adminToken }, 200)).toMatchObject({ status: "failed" });
    // The cancel deleted the backup's objects while its attempt still wrote: what the attempt wrote after that is gone too.
    expect(await objectsUnder(`backups/${backup.id}/`)).toEqual([]);
    // Another backup may start at once.
    const next = (await must("/api/v1/admin/backups", { method: "POST", token: adminToken }, 202)) as { jobId: string };
    expect(await jobToEnd<Job>(next.jobId, adminToken, 120_000)).toMatchObject({ status: "completed" });
  }, 180_000);

  it("ends a scan waiting before its first batch, which then stops and records nothing more", async () => {
    const hold = await holdTable(server.databaseUrl, "projects");
    let scanId: string;
    let jobId: string;
    try {
      ({ id: scanId } = (await must("/api/v1/admin/integrity/scans", { method: "POST", token: adminToken, json: { kind: "quick" } }, 202)) as { id: string });
      await until("the scan to wait on the projects table", hold.waiting);
      const jobs = (await must("/api/v1/admin/jobs?kind=integrity_scan", { token: adminToken }, 200)) as { items: Array<{ id: string; subjectId: string }> };
      jobId = jobs.items.find((item) => item.subjectId === scanId)!.id;
      expect((await cancel(jobId)).body).toMatchObject({ status: "failed" });
    } finally {
      await hold.release();
    }
    await until("the cancelled scan's attempt to stop", () => attemptEnded(scanId));
    expect(await must(`/api/v1/admin/integrity/scans/${scanId}`, { token: adminToken }, 200)).toMatchObject({ status: "failed" });
    expect(await must(`/api/v1/admin/jobs/${jobId}`, { token: adminToken }, 200)).toMatchObject({ status: "failed" });
    // Another quick scan may start at once.
    await must("/api/v1/admin/integrity/scans", { method: "POST", token: adminToken, json: { kind: "quick" } }, 202);
  }, 120_000);

  it("is for server admins only, and answers 404 for an unknown job and 409 for a finished one", async () => {
    const finished = (await must("/api/v1/admin/jobs?status=completed", { token: adminToken }, 200)) as { items: Job[] };
    const jobId = finished.items[0]!.id;
    await expectProblem(await server.request(`/api/v1/admin/jobs/${jobId}/cancel`, { method: "POST" }), 401, "UNAUTHENTICATED");
    await expectProblem(await server.request(`/api/v1/admin/jobs/${jobId}/cancel`, { method: "POST", token: owner.token }), 403, "FORBIDDEN");
    await expectProblem(await server.request(`/api/v1/admin/jobs/no-such-job/cancel`, { method: "POST", token: adminToken }), 404, "NOT_FOUND");
    const conflict = await expectProblem(
      await server.request(`/api/v1/admin/jobs/${jobId}/cancel`, { method: "POST", token: adminToken }),
      409,
      "JOB_FINISHED",
    );
    expect(conflict.detail).toContain("already completed");
    expect(await must(`/api/v1/admin/jobs/${jobId}`, { token: adminToken }, 200)).toMatchObject({ status: "completed" });
  });

  it("works from the shell: pnpm admin jobs cancel <id>, exit 3 once it has ended", async () => {
    const hold = await holdTable(server.databaseUrl, "push_subscriptions");
    let jobId: string;
    try {
      ({ jobId } = (await must(`/api/v1/admin/backups/${backupId}/restore`, { method: "POST", token: adminToken }, 202)) as { jobId: string });
      await until("the restore to wait halfway through its load", hold.waiting);
      const first = await runAdminCli(server, ["--json", "jobs", "cancel", jobId]);
      expect(first.code, first.output).toBe(0);
      expect(first.json()).toMatchObject({ id: jobId, status: "failed", error: expect.stringContaining("command line") });
      expect(await must("/api/v1/maintenance", {}, 200)).toMatchObject({ active: false });
    } finally {
      await hold.release();
    }
    const again = await runAdminCli(server, ["jobs", "cancel", jobId]);
    expect(again.code, again.output).toBe(3);
    expect(again.output).toContain("already failed");
  }, 180_000);
});

describe("cancelling a running observation cleanup", () => {
  it("stops at its next batch and leaves no file record whose stored object is gone", async () => {
    const { db, storage } = server.server.runtime.deps;
    const ownerId = owner.id;
    const observatoryId = ((await must("/observatories", { method: "POST", token: owner.token, json: { name: "Cancelled" } }, 201)) as { id: string }).id;
    const projectId = ((await must("/projects", { method: "POST", token: owner.token, json: { name: "Cancelled" } }, 201)) as { id: string }).id;
    // Two with a file (their records go first, with the listing's page that names them), and more than one batch (1,000) without.
    for (let index = 0; index < 1003; index += 1)
      await observationsCollection.insert(db, observationDocument({ projectId, observatoryId, ownerId }, { name: `Doomed ${index}` }));
    const ids = (await db.execute<{ id: string }>(sql`select id from observations order by id`)).map((row) => row.id);
    const files = [];
    for (const observationId of [ids[1]!, ids[ids.length - 1]!]) {
      const file = fileDocument(observationId, observatoryId, "frame.fits");
      await storage.put(file.objectKey, Buffer.from("12345"));
      files.push({ id: (await filesCollection.insert(db, file)).id, objectKey: file.objectKey });
    }

    // The cleanup's first batch of records waits on this row.
    const hold = await holdRows(server.databaseUrl, `select id from observations where id = '${ids[0]!}' for update`);
    let jobId: string;
    try {
      ({ jobId } = (await must("/api/v1/admin/cleanup/observations", { method: "POST", token: adminToken, json: { dryRun: false } }, 202)) as {
        jobId: string;
      });
      await until("the cleanup to reach its records", hold.waiting);
      expect((await cancel(jobId)).body).toMatchObject({ status: "failed" });
    } finally {
      await hold.release();
    }
    await until("the cancelled attempt to stop", () => attemptEnded(jobId), { timeoutMs: 60_000 });
    expect(await must(`/api/v1/admin/jobs/${jobId}`, { token: adminToken }, 200)).toMatchObject({ status: "failed" });
    // No batch after the cancel: the last observation without a file, in the second batch, is still there.
    expect(await observationsCollection.get(db, ids[ids.length - 2]!)).toBeDefined();
    // Whatever the cancel left, no record names an object that is gone (a critical FILE_MISSING for each).
    for (const file of files) {
      const left = { record: (await filesCollection.get(db, file.id)) !== undefined, object: (await storage.head(file.objectKey)) !== undefined };
      expect(left, file.objectKey).not.toEqual({ record: true, object: false });
    }
  }, 180_000);
});
