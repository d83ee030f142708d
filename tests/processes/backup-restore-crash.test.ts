import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { jobsCollection, observationsCollection } from "@meridian/db";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { isRunning, spawnEntry, terminate, waitForOutput, type NodeProcess } from "../support/node-process";
import { observationDocument } from "../support/observation-documents";
import { holdTable } from "../support/table-hold";
import { sharedProcessEnv, type TestServer } from "../support/test-server";
import { until } from "../support/until";

const ADMIN = { email: "crash-backup-admin@example.com", password: "crash backup admin password" };
let server: TestServer;
let adminToken: string;
let owner: Account;
let seed: (name: string) => Promise<unknown>;
const workers: NodeProcess[] = [];
beforeAll(async () => {
  // HTTP only: backups and restores run in the worker processes this test starts and kills. Its
  // caches keep a first page for an hour, so only the restore's notice can make it forget one.
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { REQUEST_CACHE_TTL_MS: String(60 * 60_000) }));
  owner = await createAccount(server);
  const observatory = (await must("/observatories", { method: "POST", token: owner.token, json: { name: "Crashing" } }, 201)) as { id: string };
  const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: "Crashing" } }, 201)) as { id: string };
  const fields = { projectId: project.id, observatoryId: observatory.id, ownerId: owner.id };
  seed = (name) => observationsCollection.insert(server.server.runtime.deps.db, observationDocument(fields, { name }));
});
afterAll(async () => {
  for (const worker of workers) if (isRunning(worker)) await terminate(worker, 10_000);
  await server?.stop();
});
const { must, call, jobToEnd: endOfJob } = jsonApi(() => server);

async function startWorkerProcess(name: string) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-backup-crash-"));
  const worker = spawnEntry("worker", { ...sharedProcessEnv(server, dataDir), LOG_LEVEL: "info" }, name);
  workers.push(worker);
  await waitForOutput(worker, /Meridian worker running/);
  return worker;
}

interface Job {
  status: string;
  error: string | null;
  result: Record<string, unknown> | null;
}
const jobToEnd = (jobId: string) => endOfJob<Job>(jobId, adminToken, 120_000);
const observationNames = async () =>
  ((await must("/observations", { token: owner.token }, 200)) as { items: Array<{ name: string }> }).items.map((item) => item.name).sort();
const maintenanceActive = async () => ((await (await server.request("/api/v1/maintenance")).json()) as { active: boolean }).active;

const deps = () => server.server.runtime.deps;
const cancel = (jobId: string) => call(`/api/v1/admin/jobs/${jobId}/cancel`, { method: "POST", token: adminToken });
async function objectsUnder(prefix: string) {
  const keys: string[] = [];
  for await (const page of deps().storage.list(prefix)) keys.push(...page.map((object) => object.key));
  return keys;
}

// First, while no worker runs at all: queued work stays queued, the moment a busy or restarting worker leaves.
describe("cancelling a backup-first cleanup while its backup waits for a worker", () => {
  it("ends the backup with it, so no backup is left running and the next one may start", async () => {
    const { jobId } = (await must(
      "/api/v1/admin/cleanup/observations",
      { method: "POST", token: adminToken, json: { dryRun: false, createBackup: true } },
      202,
    )) as {
      jobId: string;
    };
    const [backup] = await deps().db.execute<{ id: string; job_id: string }>(
      sql`select id, doc->>'jobId' as job_id from backups where doc->>'trigger' = 'cleanup'`,
    );
    expect(backup).toBeDefined();

    const cancelled = await cancel(jobId);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: "failed", error: expect.stringMatching(/^Cancelled by /) });
    // The backup was asked for as the cleanup's first step: it ends with the cleanup, its queued attempt removed.
    const [attempts] = await deps().db.execute<{ count: number }>(
      sql`select count(*)::int as count from graphile_worker._private_jobs where payload->>'jobId' = ${backup!.job_id}`,
    );
    expect(attempts!.count).toBe(0);
    expect(await must(`/api/v1/admin/jobs/${backup!.job_id}`, { token: adminToken }, 200)).toMatchObject({
      status: "failed",
      error: expect.stringContaining("with the cleanup it was for"),
    });
    expect(await must(`/api/v1/admin/backups/${backup!.id}`, { token: adminToken }, 200)).toMatchObject({ status: "failed" });
    expect(await must(`/api/v1/admin/jobs/${jobId}`, { token: adminToken }, 200)).toMatchObject({
      status: "failed",
      error: expect.stringMatching(/^Cancelled by /),
    });
    const next = (await must("/api/v1/admin/backups", { method: "POST", token: adminToken }, 202)) as { jobId: string };
    // Not left for the workers below to run.
    expect((await cancel(next.jobId)).body).toMatchObject({ status: "failed" });
  }, 60_000);
});

describe("a worker killed (-9) in the middle of a backup, then of a restore", () => {
  it("leaves the backup to be finished by another worker, and the data untouched until the restore is finished by another", async () => {
    await seed("Backed up");
    const first = await startWorkerProcess("first worker");

    const backupHold = await holdTable(server.databaseUrl, "push_subscriptions");
    let backupId: string;
    let backupJobId: string;
    try {
      ({ id: backupId, jobId: backupJobId } = (await must("/api/v1/admin/backups", { method: "POST", token: adminToken }, 202)) as {
        id: string;
        jobId: string;
      });
      await until("the backup to wait halfway through its collections", backupHold.waiting);
      first.child.kill("SIGKILL");
      await first.exited;
    } finally {
      await backupHold.release();
    }
    expect((await must(`/api/v1/admin/backups/${backupId}`, { token: adminToken }, 200)) as { status: string }).toMatchObject({ status: "running" });

    // Another worker finds the first one dead, and the backup's job runs again from the start.
    const second = await startWorkerProcess("second worker");
    expect(await jobToEnd(backupJobId)).toMatchObject({ status: "completed" });
    const backup = (await must(`/api/v1/admin/backups/${backupId}`, { token: adminToken }, 200)) as {
      status: string;
      manifest: { collections: Array<{ name: string; rows: number }> };
    };
    expect(backup.status).toBe("verified");
    expect(backup.manifest.collections.find((part) => part.name === "observations")?.rows).toBe(
      await server.server.runtime.deps.db.$count(observationsCollection.table),
    );

    await seed("After the backup");
    const namesBefore = await observationNames();
    expect(namesBefore).toContain("After the backup");

    const restoreHold = await holdTable(server.databaseUrl, "push_subscriptions");
    let restoreJobId: string;
    try {
      ({ jobId: restoreJobId } = (await must(`/api/v1/admin/backups/${backupId}/restore`, { method: "POST", token: adminToken }, 202)) as {
        jobId: string;
      });
      await until("the restore to wait halfway through its load", restoreHold.waiting);
      second.child.kill("SIGKILL");
      await second.exited;
      // Killed halfway: the live data is as it was, and writes are still refused.
      expect(await observationNames()).toEqual(namesBefore);
      expect(await maintenanceActive()).toBe(true);
      expect((await server.request("/projects", { method: "POST", token: owner.token, json: { name: "During" } })).status).toBe(503);
    } finally {
      await restoreHold.release();
    }

    await startWorkerProcess("third worker");
    expect(await jobToEnd(restoreJobId)).toMatchObject({ status: "completed" });
    // The swap's notice reaches this (HTTP) process after the commit the job's status shows, so its
    // cached first page may still be read for a moment: until it arrives, not for an hour.
    await until("the server to forget the list it read before the restore", async () => !(await observationNames()).includes("After the backup"));
    expect(await observationNames()).toContain("Backed up");
    expect(await maintenanceActive()).toBe(false);
    const leftovers = await server.server.runtime.deps.db.execute(
      sql`select nspname from pg_namespace where nspname in ('meridian_restore', 'meridian_previous')`,
    );
    expect(leftovers).toEqual([]);
  }, 300_000);
});

describe("a worker killed (-9) after its backup was cancelled", () => {
  it("leaves no part of the backup behind: the recovery removes what the attempt wrote after the cancel's deletion", async () => {
    for (const worker of workers) if (isRunning(worker)) await terminate(worker, 10_000);
    const doomed = await startWorkerProcess("worker killed after the cancel");
    const hold = await holdTable(server.databaseUrl, "push_subscriptions");
    let backup: { id: string; jobId: string };
    try {
      backup = (await must("/api/v1/admin/backups", { method: "POST", token: adminToken }, 202)) as { id: string; jobId: string };
      await until("the backup to wait halfway through its archive", hold.waiting);
      expect((await cancel(backup.jobId)).body).toMatchObject({ status: "failed" });
      // A part the attempt uploaded after the cancel deleted the backup's objects, before it was killed and could remove it.
      await deps().storage.put(`backups/${backup.id}/part-0001.br`, Buffer.from("written after the cancel"));
      doomed.child.kill("SIGKILL");
      await doomed.exited;
    } finally {
      await hold.release();
    }
    expect(await must(`/api/v1/admin/backups/${backup.id}`, { token: adminToken }, 200)).toMatchObject({ status: "failed" });

    // Another worker finds the first one dead, and the cancelled backup's release, held back while its attempt ran, is done now.
    await startWorkerProcess("worker that finds it dead");
    await until("the cancelled backup's release to finish", async () => Boolean((await jobsCollection.get(deps().db, backup.jobId))?.doc.releasedAt), {
      timeoutMs: 60_000,
    });
    expect(await objectsUnder(`backups/${backup.id}/`)).toEqual([]);
    expect(await must(`/api/v1/admin/backups/${backup.id}`, { token: adminToken }, 200)).toMatchObject({ status: "failed" });
  }, 180_000);
});
