import { randomBytes } from "node:crypto";
import { CreateMultipartUploadCommand, S3Client, UploadPartCommand } from "@aws-sdk/client-s3";
import { integrityScansCollection } from "@meridian/db";
import { runIntegrityScan, scanOptionsFor } from "@meridian/domain/integrity";
import { inTransaction, abortStaleUploads, addJob, type Deps } from "@meridian/domain/platform";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { isAbortMultipartUpload, isUploadPart, startS3Proxy, type S3Proxy } from "../support/s3-proxy";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";
import { scanDoc } from "../support/integrity-scan-doc";

const ADMIN = { email: "incomplete-uploads-admin@example.com", password: "incomplete uploads admin password" };
const DAY = 86_400_000;
let proxy: S3Proxy;
let server: TestServer;
let adminToken: string;
let s3: S3Client;
beforeAll(async () => {
  // Storage is reached through a proxy that records every S3 request and can break some of them.
  proxy = await startS3Proxy(inject("s3Endpoint"));
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all", S3_ENDPOINT: proxy.url }));
  await must("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { scanSchedule: { quick: null, full: null }, backupSchedule: null } }, 200);
  s3 = new S3Client({
    endpoint: inject("s3Endpoint"),
    region: "us-east-1",
    forcePathStyle: true,
    credentials: inject("s3Credentials"),
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
});
afterAll(async () => {
  s3?.destroy();
  await server?.stop();
  await proxy?.close();
});
const { must } = jsonApi(() => server);
const deps = () => server.server.runtime.deps;
/** The server's dependencies with the clock moved forward. */
const later = (ms: number): Deps => ({ ...deps(), now: () => new Date(Date.now() + ms) });

/** A multipart upload begun with one part of `bytes` and left: what a process killed mid-upload leaves. */
async function leftUpload(key: string, bytes: number) {
  const Bucket = server.env.S3_BUCKET;
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: key }));
  await s3.send(new UploadPartCommand({ Bucket, Key: key, UploadId, PartNumber: 1, Body: randomBytes(bytes) }));
  return UploadId!;
}
async function incompleteUploads(prefix = "") {
  const uploads = [];
  for await (const page of deps().storage.listIncompleteUploads(prefix)) uploads.push(...page);
  return uploads;
}

interface Backup {
  id: string;
  status: string;
  error: string | null;
}
interface Issue {
  id: string;
  code: string;
  severity: string;
  type: string;
  collection: string;
  documentId: string;
  message: string;
  autoFixable: boolean;
  status: string;
  fix: { description: string; changes: Array<Record<string, unknown>> } | null;
}

describe("incomplete multipart uploads", () => {
  it("aborts a backup archive's upload when storage breaks halfway through it, and the retry writes the archive whole", async () => {
    // About 16 MiB of base64 noise, which brotli cannot shrink below one 8 MiB part: the archive is a multipart upload.
    for (let index = 0; index < 16; index += 1)
      await deps().db.execute(
        sql`insert into settings (id, doc) values (${`ballast-${index}`}, ${JSON.stringify({ noise: randomBytes(768 * 1024).toString("base64") })}::jsonb)`,
      );
    // The first part is stored; every try of the second is refused.
    proxy.failWhen((request) => isUploadPart(request) && request.path.includes("/backups/") && request.query.get("partNumber") === "2");
    const started = (await must("/api/v1/admin/backups", { method: "POST", token: adminToken }, 202)) as Backup;
    // The ballast's collection is one part of the archive (format 2), whichever its number.
    const partOfThisBackup = new RegExp(`^/${server.env.S3_BUCKET}/backups/${started.id}/part-\\d{4}\\.br$`);
    const abort = await until("the failed attempt to abort its upload", async () =>
      proxy.requests.find((request) => isAbortMultipartUpload(request) && partOfThisBackup.test(request.path) && request.status !== undefined),
    );
    expect(abort.status).toBe(204);
    const failedUpload = abort.query.get("uploadId");
    expect(proxy.requests.some((request) => isUploadPart(request) && request.query.get("uploadId") === failedUpload && request.status === 200)).toBe(true);
    expect((await incompleteUploads("backups/")).map((upload) => upload.uploadId)).not.toContain(failedUpload);

    // Storage comes back: the job's retry takes the backup all the way.
    proxy.failWhen(null);
    const backup = await until(
      "the backup to settle",
      async () => {
        const current = (await must(`/api/v1/admin/backups/${started.id}`, { token: adminToken }, 200)) as Backup;
        return current.status === "verified" || current.status === "failed" ? current : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(backup).toMatchObject({ status: "verified", error: null });
    expect(await incompleteUploads()).toEqual([]);
    await deps().db.execute(sql`delete from settings where id like 'ballast-%'`);
  });

  it("are aborted by the daily abort_stale_uploads job once older than a day, and not before", async () => {
    const first = await leftUpload("observations/obs_killed/fil_a", 1000);
    const second = await leftUpload("backups/bkp_killed/archive.br", 20);
    expect(await abortStaleUploads({ deps: deps() })).toEqual({ aborted: 0, bytes: 0 });
    expect((await incompleteUploads()).map((upload) => upload.uploadId).sort()).toEqual([first, second].sort());

    expect(await abortStaleUploads({ deps: later(DAY + 60_000) })).toEqual({ aborted: 2, bytes: 1020 });
    expect(await incompleteUploads()).toEqual([]);

    // The job as the worker runs it, here with an age of nothing.
    const third = await leftUpload("observations/obs_killed/fil_b", 10);
    const [begun] = await incompleteUploads();
    await until("a moment after the upload began", async () => Date.now() > begun!.initiated!.getTime());
    await inTransaction(deps(), (t) => addJob({ t, name: "abort_stale_uploads", payload: { olderThanMs: 0 } }));
    await until("the job to abort it", async () => (await incompleteUploads()).every((upload) => upload.uploadId !== third));
  });

  it("are reported by the storage check once older than a day, with their count and bytes, and a repair aborts them", async () => {
    const uploads = [await leftUpload("observations/obs_killed/fil_c", 500), await leftUpload("backups/bkp_killed/archive.br", 300)];
    // Begun just now: a scan today (through the API and the worker) does not report them.
    const started = (await must(
      "/api/v1/admin/integrity/scans",
      { method: "POST", token: adminToken, json: { kind: "full", collections: ["files"], checkStorage: true } },
      202,
    )) as { id: string };
    const today = await until("today's scan to complete", async () => {
      const current = (await must(`/api/v1/admin/integrity/scans/${started.id}`, { token: adminToken }, 200)) as { status: string };
      return current.status === "completed" && started.id;
    });
    expect((await issuesOf(today)).filter((issue) => issue.code === "INCOMPLETE_UPLOAD")).toEqual([]);

    const tomorrow = await scan(later(DAY + 60_000));
    const [issue, ...others] = (await issuesOf(tomorrow)).filter((found) => found.code === "INCOMPLETE_UPLOAD");
    expect(others).toEqual([]);
    expect(issue).toMatchObject({ severity: "warning", type: "file", collection: "storage", autoFixable: true, status: "open" });
    expect(issue!.message).toContain("2 multipart uploads");
    expect(issue!.message).toContain("800 bytes");
    expect(issue!.fix!.changes).toEqual([
      { abortUpload: "backups/bkp_killed/archive.br", uploadId: uploads[1], initiated: expect.any(String), bytes: 300 },
      { abortUpload: "observations/obs_killed/fil_c", uploadId: uploads[0], initiated: expect.any(String), bytes: 500 },
    ]);

    const repaired = (await must(`/api/v1/admin/integrity/issues/${issue!.id}/repair`, { method: "POST", token: adminToken }, 200)) as Issue & {
      repair: { verified: boolean; result: Record<string, unknown> };
    };
    expect(repaired).toMatchObject({ status: "repaired", repair: { verified: true, result: { aborted: 2, alreadyGone: 0, bytes: 800 } } });
    expect(await incompleteUploads()).toEqual([]);
  });
});

/** A full scan of the file records with the storage check, run to its end with these dependencies (their clock). */
async function scan(scanDeps: Deps) {
  const created = await integrityScansCollection.insert(
    scanDeps.db,
    scanDoc({
      kind: "full",
      options: scanOptionsFor({ kind: "full", input: { collections: ["files"], checkStorage: true } }),
      startedAt: scanDeps.now().toISOString(),
    }),
  );
  await runIntegrityScan({ deps: scanDeps, scanId: created.id });
  expect((await integrityScansCollection.get(scanDeps.db, created.id))?.doc.status).toBe("completed");
  return created.id;
}
const issuesOf = async (scanId: string) =>
  ((await must(`/api/v1/admin/integrity/scans/${scanId}/issues?type=file&limit=200`, { token: adminToken }, 200)) as { items: Issue[] }).items;
