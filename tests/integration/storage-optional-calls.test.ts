import { Writable } from "node:stream";
import { CreateMultipartUploadCommand, ListMultipartUploadsCommand, S3Client, UploadPartCommand } from "@aws-sdk/client-s3";
import { createLogger } from "@meridian/config";
import { filesCollection, integrityScansCollection } from "@meridian/db";
import { runIntegrityScan, scanOptionsFor } from "@meridian/domain/integrity";
import { abortStaleUploads, addJob, inTransaction, type Deps } from "@meridian/domain/platform";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { fileDocument } from "../support/observation-documents";
import { isListMultipartUploads, isListParts, startS3Proxy, type S3Proxy } from "../support/s3-proxy";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";
import { scanDoc } from "../support/integrity-scan-doc";

const ADMIN = { email: "optional-calls-admin@example.com", password: "optional storage calls admin password" };
const DAY = 86_400_000;
let proxy: S3Proxy;
let server: TestServer;
let adminToken: string;
let s3: S3Client;
beforeAll(async () => {
  // The real embedded store behind a proxy that refuses ListMultipartUploads as unpatched s3rver does (501 NotImplemented).
  proxy = await startS3Proxy(inject("s3Endpoint"));
  proxy.refuseAsUnimplemented(isListMultipartUploads);
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all", S3_ENDPOINT: proxy.url }));
  await must("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { scanSchedule: { quick: null, full: null }, backupSchedule: null } }, 200);
  // Straight to the store, for what the proxy's clients cannot see.
  s3 = new S3Client({
    endpoint: inject("s3Endpoint"),
    region: "us-east-1",
    forcePathStyle: true,
    credentials: inject("s3Credentials"),
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
});
afterEach(() => proxy.refuseAsUnimplemented(isListMultipartUploads));
afterAll(async () => {
  s3?.destroy();
  await server?.stop();
  await proxy?.close();
});
const api = jsonApi(() => server);
const { must } = api;
const deps = () => server.server.runtime.deps;

interface Scan {
  id: string;
  status: string;
  error: string | null;
  summary: { critical: number; warning: number; info: number };
}
interface Issue {
  id: string;
  code: string;
  severity: string;
  collection: string;
  documentId: string;
  message: string;
  fix: { changes: Array<Record<string, unknown>> } | null;
}
const issuesOf = async (scanId: string) =>
  ((await must(`/api/v1/admin/integrity/scans/${scanId}/issues?limit=200`, { token: adminToken }, 200)) as { items: Issue[] }).items;

/** A multipart upload begun with one part and left, straight in the store: what a process killed mid-upload leaves. */
async function leftUpload(key: string, bytes: number) {
  const Bucket = server.env.S3_BUCKET;
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: key }));
  await s3.send(new UploadPartCommand({ Bucket, Key: key, UploadId, PartNumber: 1, Body: Buffer.alloc(bytes, 7) }));
  return UploadId!;
}

/** The server's dependencies with a logger whose lines this keeps. */
function loggingDeps(base: Deps = deps()) {
  const lines: Array<{ level: number; msg: string; call?: string }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line) as (typeof lines)[number]);
      done();
    },
  });
  return { deps: { ...base, logger: createLogger({ level: "info", destination: sink }) }, lines };
}

describe("storage without ListMultipartUploads", () => {
  it("a full scan with the storage check completes, reports STORAGE_CHECK_PARTIAL naming the call, and runs every other check", async () => {
    const { db, storage } = deps();
    const observationId = "obs_partial";
    const missing = await filesCollection.insert(db, fileDocument(observationId, "oby_partial", "missing.fits"));
    await storage.put(`observations/${observationId}/orphan.fits`, Buffer.from("nobody's"));

    const scan = await api.scanToEnd<Scan>({ kind: "full", collections: ["files"], checkStorage: true, checkHealth: true }, adminToken);
    expect(scan).toMatchObject({ status: "completed", error: null });
    expect(proxy.requests.some((request) => isListMultipartUploads(request) && request.status === 501)).toBe(true);
    const issues = await issuesOf(scan.id);
    const partial = issues.filter((issue) => issue.code === "STORAGE_CHECK_PARTIAL");
    expect(partial).toEqual([expect.objectContaining({ severity: "info", collection: "storage", documentId: "ListMultipartUploads", fix: null })]);
    expect(partial[0]!.message).toContain("ListMultipartUploads");
    // Every other part of the check ran: the lost file and the orphan are found.
    expect(issues.find((issue) => issue.documentId === missing.id)?.code).toBe("FILE_MISSING");
    expect(issues.find((issue) => issue.documentId === `observations/${observationId}/orphan.fits`)?.code).toBe("ORPHAN_OBJECT");
    expect(scan.summary.critical).toBeGreaterThanOrEqual(1);
    expect(scan.summary.info).toBeGreaterThanOrEqual(1);
    await db.execute(sql`delete from files where id = ${missing.id}`);
    await storage.delete(`observations/${observationId}/orphan.fits`);
  });

  it("the daily abort of stale uploads logs the refusal once and ends, in the worker too", async () => {
    const left = await leftUpload("observations/obs_killed/fil_partial", 100);
    const { deps: logging, lines } = loggingDeps({ ...deps(), now: () => new Date(Date.now() + DAY + 60_000) });
    expect(await abortStaleUploads({ deps: logging })).toEqual({ aborted: 0, bytes: 0, unsupported: "ListMultipartUploads" });
    expect(lines.filter((line) => line.msg.includes("ListMultipartUploads"))).toEqual([expect.objectContaining({ call: "ListMultipartUploads" })]);

    // The job as the server's worker runs it: it completes on its first attempt instead of failing.
    await inTransaction(deps(), (t) => addJob({ t, name: "abort_stale_uploads", payload: { olderThanMs: 0 } }));
    const outcome = await until("the abort_stale_uploads job to end or fail", async () => {
      const [job] = await deps().db.execute<{ last_error: string | null }>(
        sql`select last_error from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
             where t.identifier = 'abort_stale_uploads'`,
      );
      return job ? (job.last_error ?? undefined) : "completed";
    });
    expect(outcome).toBe("completed");
    await deps().storage.abortUpload({ key: "observations/obs_killed/fil_partial", uploadId: left });
  });

  it("with ListParts refused instead, reports the abandoned uploads without their size, the size check as left out, and its repair aborts them", async () => {
    proxy.refuseAsUnimplemented(isListParts);
    const left = await leftUpload("observations/obs_killed/fil_unsized", 300);
    const later: Deps = { ...deps(), now: () => new Date(Date.now() + DAY + 60_000) };
    // A quick scan with the storage check: one full scan of the server's may still be under way.
    const created = await integrityScansCollection.insert(
      later.db,
      scanDoc({
        kind: "quick",
        options: scanOptionsFor({ kind: "quick", input: { collections: ["files"], checkStorage: true } }),
        startedAt: later.now().toISOString(),
      }),
    );
    await runIntegrityScan({ deps: later, scanId: created.id });
    expect((await integrityScansCollection.get(later.db, created.id))?.doc.status).toBe("completed");
    const issues = await issuesOf(created.id);
    expect(issues.filter((issue) => issue.code === "STORAGE_CHECK_PARTIAL").map((issue) => issue.documentId)).toEqual(["ListParts"]);
    const [abandoned] = issues.filter((issue) => issue.code === "INCOMPLETE_UPLOAD");
    expect(abandoned!.message).toContain("1 multipart upload begun more than a day ago");
    expect(abandoned!.message).not.toContain("bytes");
    expect(abandoned!.fix!.changes).toEqual([
      { abortUpload: "observations/obs_killed/fil_unsized", uploadId: left, initiated: expect.any(String), bytes: null },
    ]);

    // Its repair aborts the upload without counting the bytes (ListParts still refused), and sees it gone through ListMultipartUploads.
    const repaired = (await must(`/api/v1/admin/integrity/issues/${abandoned!.id}/repair`, { method: "POST", token: adminToken }, 200)) as {
      status: string;
      repair: { verified: boolean; result: Record<string, unknown> };
    };
    expect(repaired).toMatchObject({ status: "repaired", repair: { verified: true, result: { aborted: 1, alreadyGone: 0, bytes: 0, unsized: 1 } } });
    const remaining = await s3.send(new ListMultipartUploadsCommand({ Bucket: server.env.S3_BUCKET, Prefix: "observations/obs_killed/fil_unsized" }));
    expect(remaining.Uploads ?? []).toEqual([]);
  });
});
