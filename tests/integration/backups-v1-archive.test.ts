import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import { brotliDecompressSync, gzipSync } from "node:zlib";
import { backupManifestSchema, backupsCollection, jobsCollection, observationsCollection, type BackupManifestV1 } from "@meridian/db";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loginSession } from "../support/auth-suite";
import { jsonApi } from "../support/json-api";
import { observationDocument } from "../support/observation-documents";
import { startObservingSetup, type ObservingSetup } from "../support/observing-setup";
import { until } from "../support/until";

/**
 * Backups taken before archive format version 2 (one archive object, every collection in turn)
 * still verify and restore. The fixture was written by the version 1 writer itself
 * (tests/fixtures/backup-v1/README.md); its gzip twin stands for the backups taken before brotli.
 * Restoring it replaces this server's users with the fixture's, so this file has a server of its own.
 */

const FIXTURE = new URL("../fixtures/backup-v1/", import.meta.url);
const FIXTURE_ADMIN = { email: "v1-admin@example.com", password: "v1 admin password" };
let setup: ObservingSetup;
let brotliId: string;
let gzipId: string;
beforeAll(async () => {
  setup = await startObservingSetup({ email: "now-admin@example.com", password: "now admin password" }, "Now");
  const deps = setup.server.server.runtime.deps;
  const manifest = backupManifestSchema.parse(JSON.parse(await fs.readFile(new URL("manifest.json", FIXTURE), "utf8"))) as BackupManifestV1;
  const archive = await fs.readFile(new URL("archive.br", FIXTURE));
  const record = (objectKey: string, stored: BackupManifestV1) => ({
    status: "completed" as const,
    trigger: "manual" as const,
    objectKey,
    sizeBytes: stored.archive.sizeBytes,
    manifest: stored,
    jobId: null,
    startedBy: null,
    startedAt: stored.snapshotAt,
    finishedAt: stored.snapshotAt,
    verifiedAt: null,
    error: null,
  });
  // The fixture under the key its manifest names, manifest and all, as the version 1 writer left them.
  brotliId = manifest.archive.key.split("/")[1]!;
  await deps.storage.put(manifest.archive.key, archive);
  await deps.storage.put(`backups/${brotliId}/manifest.json`, Buffer.from(JSON.stringify(manifest)));
  await backupsCollection.insert(deps.db, record(manifest.archive.key, manifest), brotliId);

  gzipId = backupsCollection.newId();
  const gzipped = gzipSync(brotliDecompressSync(archive));
  const gzipKey = `backups/${gzipId}/archive.gz`;
  const gzipManifest: BackupManifestV1 = {
    ...manifest,
    compression: "gzip",
    archive: { key: gzipKey, sizeBytes: gzipped.length, sha256: createHash("sha256").update(gzipped).digest("hex") },
  };
  await deps.storage.put(gzipKey, gzipped);
  await deps.storage.put(`backups/${gzipId}/manifest.json`, Buffer.from(JSON.stringify(gzipManifest)));
  await backupsCollection.insert(deps.db, record(gzipKey, gzipManifest), gzipId);
});
afterAll(() => setup?.server.stop());

const deps = () => setup.server.server.runtime.deps;
const { must } = jsonApi(() => setup.server);
const observationNames = async () =>
  (await deps().db.execute<{ name: string }>(sql`select doc->>'name' as name from observations order by 1`)).map((row) => row.name);
/** A restore swaps this server's users and sessions for the fixture's, so its end is watched in the jobs table, which it keeps. */
const restoreToEnd = async (backupId: string, token: string) => {
  const { jobId } = (await must(`/api/v1/admin/backups/${backupId}/restore`, { method: "POST", token }, 202)) as { jobId: string };
  return until(`restore ${jobId} to end`, async () => {
    const job = await jobsCollection.get(deps().db, jobId);
    return job?.doc.status === "completed" || job?.doc.status === "failed" ? job.doc : undefined;
  });
};

describe("a version 1 archive", () => {
  it("verifies, brotli and gzip alike", async () => {
    for (const id of [brotliId, gzipId]) {
      const { jobId } = (await must(`/api/v1/admin/backups/${id}/verify`, { method: "POST", token: setup.adminToken }, 202)) as { jobId: string };
      const job = await until(`verification ${jobId}`, async () => {
        const found = (await must(`/api/v1/admin/jobs/${jobId}`, { token: setup.adminToken }, 200)) as { status: string; error: string | null };
        return found.status === "completed" || found.status === "failed" ? found : undefined;
      });
      expect(job).toMatchObject({ status: "completed", error: null });
      expect(await must(`/api/v1/admin/backups/${id}`, { token: setup.adminToken }, 200)).toMatchObject({ status: "verified", error: null });
    }
  });

  it("restores, brotli and gzip alike: the fixture's data back, what came after gone, its admin signs in", async () => {
    await observationsCollection.insert(
      deps().db,
      observationDocument({ projectId: setup.projectId, observatoryId: setup.observatoryId, ownerId: setup.owner.id }, { name: "Made after the fixture" }),
    );
    expect(await restoreToEnd(brotliId, setup.adminToken)).toMatchObject({ status: "completed", error: null });
    expect(await observationNames()).toEqual(["Kept in a version 1 archive"]);
    const { token } = await loginSession(setup.server, FIXTURE_ADMIN);

    await must("/projects", { method: "POST", token, json: { name: "Made after the first restore" } }, 201);
    expect(await restoreToEnd(gzipId, token)).toMatchObject({ status: "completed", error: null });
    expect(await observationNames()).toEqual(["Kept in a version 1 archive"]);
    const projects = (await deps().db.execute<{ name: string }>(sql`select doc->>'name' as name from projects`)).map((row) => row.name);
    expect(projects).not.toContain("Made after the first restore");
  });
});
