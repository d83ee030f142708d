import { randomUUID } from "node:crypto";
import { filesCollection, observationHistoryCollection, observationsCollection } from "@meridian/db";
import { deleteCleanupObjects, runObservationCleanup } from "@meridian/domain/cleanup";
import { reportJob } from "@meridian/domain/platform";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createApiKey, expectProblem } from "../support/auth-suite";
import { jsonApi } from "../support/json-api";
import { fileDocument, observationDocument } from "../support/observation-documents";
import { useObservingSetup } from "../support/observing-hooks";
import { until } from "../support/until";
import { recordHeldJob } from "../support/held-jobs";
import { controlServerClock } from "../support/test-clock";

const ADMIN = { email: "cleanup-admin@example.com", password: "cleanup admin password" };
const setup = useObservingSetup(ADMIN, "Kept");
const { must } = jsonApi(() => setup.server);

/** An observation with a history entry and `files` files, each with its object. */
async function seedObservation(files = 2) {
  const { db, storage } = setup.deps();
  const observation = await observationsCollection.insert(
    db,
    observationDocument(
      { projectId: setup.projectId, observatoryId: setup.observatoryId, ownerId: setup.owner.id },
      { name: `Doomed ${randomUUID().slice(0, 6)}` },
    ),
  );
  await observationHistoryCollection.insert(db, {
    observationId: observation.id,
    from: null,
    to: "pending",
    at: new Date().toISOString(),
    actor: { kind: "system", id: "test" },
    reason: null,
  });
  for (let index = 0; index < files; index += 1) {
    const file = fileDocument(observation.id, setup.observatoryId, `frame-${index}.fits`);
    await storage.put(file.objectKey, Buffer.from("12345"));
    await filesCollection.insert(db, file);
  }
  return observation.id;
}
const cleanup = (json: unknown, token = setup.adminToken) => setup.server.request("/api/v1/admin/cleanup/observations", { method: "POST", token, json });
async function jobToEnd(jobId: string) {
  return until("the cleanup to finish", async () => {
    const job = (await must(`/api/v1/admin/jobs/${jobId}`, { token: setup.adminToken }, 200)) as { status: string; result: Record<string, unknown> | null };
    return job.status === "completed" || job.status === "failed" ? job : undefined;
  });
}

describe("observation data cleanup", () => {
  it("previews, then deletes every observation, file record and stored image, and keeps everything else", async () => {
    for (let index = 0; index < 3; index += 1) await seedObservation();
    await setup.deps().storage.put("observations/obn_gone/orphan", Buffer.from("nobody's"));
    const { key } = await createApiKey(setup.server, setup.owner.token);

    const preview = await cleanup({ dryRun: true });
    expect(preview.status).toBe(200);
    expect(await preview.json()).toEqual({ observations: 3, files: 6, storageObjects: 7 });
    expect(((await must("/observations", { token: setup.owner.token }, 200)) as { items: unknown[] }).items).toHaveLength(3);

    const started = await cleanup({ dryRun: false });
    expect(started.status).toBe(202);
    const { jobId } = (await started.json()) as { jobId: string };
    const job = await jobToEnd(jobId);
    expect(job).toMatchObject({ status: "completed", result: { observations: 3, files: 6, storageObjects: 7, backupId: null } });

    expect(await (await cleanup({ dryRun: true })).json()).toEqual({ observations: 0, files: 0, storageObjects: 0 });
    expect(((await must("/observations", { token: setup.owner.token }, 200)) as { items: unknown[] }).items).toHaveLength(0);
    // What stays: observatories, projects, users, API keys.
    await must(`/observatories/${setup.observatoryId}`, { token: setup.owner.token }, 200);
    await must(`/projects/${setup.projectId}`, { token: setup.owner.token }, 200);
    await must("/api/v1/auth/me", { token: key }, 200);
    const audit = (await must("/api/v1/admin/audit", { token: setup.adminToken }, 200)) as { items: Array<{ action: string; after: unknown }> };
    expect(audit.items.find((entry) => entry.action === "observations.cleanup")?.after).toEqual({ observations: 3, files: 6, storageObjects: 7 });
  });

  it("finishes a run that was killed after deleting the objects, and a scan afterwards finds nothing dangling", async () => {
    for (let index = 0; index < 2; index += 1) await seedObservation(3);
    // A run killed between its two stages: the objects are gone, the records are not.
    await deleteCleanupObjects({ deps: setup.deps(), cutoff: new Date().toISOString() });
    expect(await (await cleanup({ dryRun: true })).json()).toEqual({ observations: 2, files: 6, storageObjects: 0 });

    const { jobId } = (await (await cleanup({ dryRun: false })).json()) as { jobId: string };
    expect(await jobToEnd(jobId)).toMatchObject({ status: "completed", result: { observations: 2, files: 6 } });
    const scan = (await must(
      "/api/v1/admin/integrity/scans",
      { method: "POST", token: setup.adminToken, json: { kind: "full", deepScan: true, checkStorage: true } },
      202,
    )) as {
      id: string;
    };
    const finished = await until("the scan", async () => {
      const current = (await must(`/api/v1/admin/integrity/scans/${scan.id}`, { token: setup.adminToken }, 200)) as { status: string };
      return current.status === "completed" ? current : undefined;
    });
    expect(finished).toMatchObject({ status: "completed" });
    const issues = (await must(`/api/v1/admin/integrity/scans/${scan.id}/issues?type=file`, { token: setup.adminToken }, 200)) as { items: unknown[] };
    expect(issues.items).toEqual([]);
  });

  it("keeps observations created after the cleanup started, with their files", async () => {
    const doomed = await seedObservation(1);
    const cutoff = new Date().toISOString();
    await until("the clock to move past the cutoff", async () => (Date.now() > Date.parse(cutoff) ? true : undefined));
    const kept = await seedObservation(1);
    const job = await recordHeldJob(setup.deps(), { kind: "observation_cleanup", startedBy: null });
    await runObservationCleanup({ deps: setup.deps(), jobId: job.id, cutoff, actorId: null });
    expect(await observationsCollection.get(setup.deps().db, doomed)).toBeUndefined();
    expect(await observationsCollection.get(setup.deps().db, kept)).toBeDefined();
    expect(await setup.deps().storage.head(`observations/${kept}/frame-0.fits`)).toEqual({ contentLength: 5 });
    expect(await setup.deps().storage.head(`observations/${doomed}/frame-0.fits`)).toBeUndefined();
  });

  it("backs up first when asked, and starts only once the backup is verified", async () => {
    const doomed = await seedObservation(1);
    const started = await cleanup({ dryRun: false, createBackup: true });
    expect(started.status).toBe(202);
    const { jobId } = (await started.json()) as { jobId: string };
    const job = await jobToEnd(jobId);
    expect(job.status).toBe("completed");
    const backupId = job.result!.backupId as string;
    expect(backupId).toMatch(/^bak_/);
    const backup = (await must(`/api/v1/admin/backups/${backupId}`, { token: setup.adminToken }, 200)) as {
      status: string;
      trigger: string;
      manifest: { collections: Array<{ name: string; rows: number }> };
    };
    expect(backup).toMatchObject({ status: "verified", trigger: "cleanup" });
    // The backup holds what the cleanup deleted.
    expect(backup.manifest.collections.find((part) => part.name === "observations")!.rows).toBeGreaterThanOrEqual(1);
    expect(await observationsCollection.get(setup.deps().db, doomed)).toBeUndefined();
  });

  it("deletes what its dry run said it would, though the server's clock runs behind the database's", async () => {
    for (let index = 0; index < 3; index += 1) await seedObservation(1);
    // Two hosts a little apart: the server's clock five seconds behind the database's (the test clock moves the server's alone).
    const serverNow = setup.deps().now;
    controlServerClock(setup.server, Date.now() - 5_000);
    try {
      const preview = await cleanup({ dryRun: true });
      expect(await preview.json()).toEqual({ observations: 3, files: 3, storageObjects: 3 });
      const { jobId } = (await (await cleanup({ dryRun: false })).json()) as { jobId: string };
      expect(await jobToEnd(jobId)).toMatchObject({ status: "completed", result: { observations: 3, files: 3, storageObjects: 3 } });
      expect(await setup.deps().db.$count(observationsCollection.table)).toBe(0);
    } finally {
      setup.deps().now = serverNow;
    }
  });

  it("counts the objects storage held, as its dry run does, not one for each file record naming one", async () => {
    const { db } = setup.deps();
    const observationId = await seedObservation(1);
    // A lost file (its record names no object) and a second record of the stored one.
    await filesCollection.insert(db, fileDocument(observationId, setup.observatoryId, "lost.fits"));
    await filesCollection.insert(db, fileDocument(observationId, setup.observatoryId, "frame-0.fits"));
    const preview = await (await cleanup({ dryRun: true })).json();
    expect(preview).toEqual({ observations: 1, files: 3, storageObjects: 1 });
    const { jobId } = (await (await cleanup({ dryRun: false })).json()) as { jobId: string };
    expect(await jobToEnd(jobId)).toMatchObject({ status: "completed", result: { ...preview, backupId: null } });
  });

  it("refuses to start while a restore is queued or running, naming it", async () => {
    const restore = await recordHeldJob(setup.deps(), { kind: "backup_restore", startedBy: null });
    try {
      const queued = await expectProblem(await cleanup({ dryRun: false }), 409, "RESTORE_RUNNING");
      expect(queued.detail).toContain(restore.id);
      await reportJob({ deps: setup.deps(), jobId: restore.id, status: "running" });
      const running = await expectProblem(await cleanup({ dryRun: false, createBackup: true }), 409, "RESTORE_RUNNING");
      expect(running.detail).toContain(restore.id);
    } finally {
      await setup.deps().db.execute(sql`delete from jobs where id = ${restore.id}`);
    }
  });

  it("runs one at a time, and is for server administrators only", async () => {
    const running = await recordHeldJob(setup.deps(), { kind: "observation_cleanup", startedBy: null });
    const refused = await expectProblem(await cleanup({ dryRun: false }), 409, "CLEANUP_RUNNING");
    expect(refused.detail).toContain(running.id);
    await expectProblem(await cleanup({ dryRun: false, createBackup: true }), 409, "CLEANUP_RUNNING");
    await expectProblem(await cleanup({ dryRun: "yes" }), 400, "VALIDATION_FAILED");
    await expectProblem(await cleanup({}), 400, "VALIDATION_FAILED");
    await expectProblem(await cleanup({ dryRun: true }, setup.owner.token), 403, "FORBIDDEN");
    await expectProblem(await setup.server.request("/api/v1/admin/cleanup/observations", { method: "POST", json: { dryRun: true } }), 401, "UNAUTHENTICATED");
  });
});
