import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import {
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { createLogger } from "@meridian/config";
import { startEmbeddedS3, type EmbeddedS3 } from "@meridian/db";
import { abortStaleDestinationUploads } from "@meridian/domain/delivery";
import { addJob, inTransaction, type Deps } from "@meridian/domain/platform";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { isAbortMultipartUpload, isListMultipartUploads, isUploadPart, startS3Proxy, type S3Proxy } from "../support/s3-proxy";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

const ADMIN = { email: "delivery-left-uploads-admin@example.com", password: "delivery left uploads admin password" };
const DAY = 86_400_000;
const MiB = 1024 * 1024;
const BUCKET = "archive";
let server: TestServer;
let destinationStore: EmbeddedS3;
let destinationDir: string;
/** The destination as the server reaches it: through a proxy that can break its requests. */
let destination: S3Proxy;
/** A second destination in the same store that answers ListMultipartUploads 501, as unpatched s3rver and some gateways do. */
let withoutListing: S3Proxy;
let owner: Account;
let organizationId: string;
let projectId: string;
let observatoryId: string;
let pluginKey: string;
const destinationIds = { down: "", withoutListing: "", archive: "" };

beforeAll(async () => {
  destinationDir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-destination-s3-"));
  destinationStore = await startEmbeddedS3({ directory: destinationDir });
  await store().send(new CreateBucketCommand({ Bucket: BUCKET }));
  destination = await startS3Proxy(destinationStore.endpoint);
  withoutListing = await startS3Proxy(destinationStore.endpoint);
  withoutListing.refuseAsUnimplemented(isListMultipartUploads);
  // An address nothing answers at any more: a destination that is down.
  const gone = await startS3Proxy(destinationStore.endpoint);
  await gone.close();
  ({ server } = await startServerWithAdmin(ADMIN, {
    // The worker runs in the server process, so deliveries really happen; multipart above 512 KiB (in parts of S3's least, 5 MiB).
    MERIDIAN_ROLE: "all",
    DELIVERY_LARGE_FILE_BYTES: String(512 * 1024),
    DELIVERY_CHUNK_BYTES: String(256 * 1024),
  }));
  owner = await createAccount(server);
  organizationId = (await createOrganization(owner)).id;
  const s3 = (label: string, endpoint: string, prefix: string) => ({
    kind: "s3",
    label,
    settings: { endpoint, region: "us-east-1", bucket: BUCKET, prefix, forcePathStyle: true },
    secrets: { accessKeyId: destinationStore.accessKeyId, secretAccessKey: destinationStore.secretAccessKey },
  });
  // The two that fail come first: the clean-up must go past them.
  const organization = (await must(
    `/organizations/${organizationId}`,
    {
      method: "PUT",
      token: owner.token,
      json: {
        externalStorage: [
          s3("Down", gone.url, "meridian"),
          s3("Without listing", withoutListing.url, "unlisted/"),
          s3("Archive", destination.url, "meridian/"),
        ],
      },
    },
    200,
  )) as { externalStorage: Array<{ id: string; label: string }> };
  const idOf = (label: string) => organization.externalStorage.find((item) => item.label === label)!.id;
  Object.assign(destinationIds, { down: idOf("Down"), withoutListing: idOf("Without listing"), archive: idOf("Archive") });
  projectId = ((await must("/projects", { method: "POST", token: owner.token, json: { name: "Comets", organizationId } }, 201)) as { id: string }).id;
  observatoryId = (await createObservatory(owner)).id;
  pluginKey = (
    (await must(`/observatories/${observatoryId}/api-keys`, { method: "POST", token: owner.token, json: { name: "plugin" } }, 201)) as { key: string }
  ).key;
});
afterAll(async () => {
  await server?.stop();
  await Promise.all([destination?.close(), withoutListing?.close()]);
  await destinationStore?.stop();
  if (destinationDir) await fs.rm(destinationDir, { recursive: true, force: true });
});
const { must, createOrganization, createObservatory, createObservation } = jsonApi(() => server);
const deps = () => server.server.runtime.deps;

/** Straight to the destination's store, past the proxies. */
function store() {
  return new S3Client({
    endpoint: destinationStore.endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: destinationStore.accessKeyId, secretAccessKey: destinationStore.secretAccessKey },
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
}
/** The incomplete multipart uploads at the destination under `prefix`, by key. */
async function incompleteUploads(prefix: string) {
  const page = await store().send(new ListMultipartUploadsCommand({ Bucket: BUCKET, Prefix: prefix }));
  return (page.Uploads ?? []).map((upload) => ({ key: upload.Key!, uploadId: upload.UploadId! }));
}
/** When the destination says an upload began. */
async function initiatedAt(key: string, uploadId: string) {
  const page = await store().send(new ListMultipartUploadsCommand({ Bucket: BUCKET, Prefix: key }));
  return page.Uploads!.find((upload) => upload.UploadId === uploadId)!.Initiated!;
}
/** What an attempt killed mid-upload leaves at the destination: a multipart upload begun with one part, never completed nor aborted. */
async function leftUpload(key: string) {
  const { UploadId } = await store().send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: key }));
  await store().send(new UploadPartCommand({ Bucket: BUCKET, Key: key, UploadId, PartNumber: 1, Body: randomBytes(5 * MiB) }));
  return UploadId!;
}

interface Delivery {
  status: string;
  attempts: number;
  remotePath: string | null;
  error: string | null;
}
const observationTo = (destinationId: string) =>
  createObservation(owner, { name: `Comet ${randomBytes(2).toString("hex")}`, projectId, observatoryId, storageDestinationId: destinationId });
const keyOf = (observation: { id: string; name: string }, filename: string) => `meridian/Comets/${observation.name} (${observation.id})/${filename}`;
async function upload(observationId: string, filename: string, bytes: Buffer) {
  const response = await server.request(`/observations/${observationId}/files?filename=${encodeURIComponent(filename)}`, {
    method: "POST",
    token: pluginKey,
    headers: { "content-type": "application/fits" },
    body: new Uint8Array(bytes),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}
const deliveryWhen = (observationId: string, fileId: string, what: string, done: (delivery: Delivery) => boolean) =>
  until(
    what,
    async () => {
      const files = (await must(`/observations/${observationId}/files`, { token: owner.token }, 200)) as {
        items: Array<{ id: string; deliveries: Delivery[] }>;
      };
      const delivery = files.items.find((file) => file.id === fileId)?.deliveries[0];
      return delivery && done(delivery) ? delivery : undefined;
    },
    { timeoutMs: 60_000 },
  );
const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** The server's dependencies with the clock moved forward and a logger whose lines this keeps. */
function laterWithLog(ms: number) {
  const lines: Array<{ level: number; msg: string; destinationId?: string; aborted?: number }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line) as (typeof lines)[number]);
      done();
    },
  });
  const later: Deps = { ...deps(), now: () => new Date(Date.now() + ms), logger: createLogger({ level: "info", destination: sink }) };
  return { deps: later, lines };
}

describe("multipart uploads a delivery leaves at an S3 destination", () => {
  it("a failed attempt aborts its own, though the destination was down when it first tried, and the next attempt delivers", async () => {
    const observation = await observationTo(destinationIds.archive);
    const key = keyOf(observation, "broken.fits");
    // The destination goes away after the first part: the other parts and the first try at aborting the upload are refused; then it is back.
    let abortsRefused = 0;
    destination.failWhen((request) => {
      if (!request.path.endsWith("/broken.fits")) return false;
      if (isUploadPart(request)) return request.query.get("partNumber") !== "1";
      if (!isAbortMultipartUpload(request) || abortsRefused > 0) return false;
      abortsRefused += 1;
      return true;
    });
    try {
      const bytes = randomBytes(12 * MiB);
      const fileId = await upload(observation.id, "broken.fits", bytes);
      const failed = await deliveryWhen(observation.id, fileId, "the first attempt to fail", (delivery) => delivery.attempts === 1 && delivery.error !== null);
      // An attempt is counted when it starts (killed ones count too), so its failure is the error it leaves.
      expect(failed).toMatchObject({ status: "pending", error: expect.stringContaining("S3 answered 500") });
      const aborts = destination.requests.filter((request) => isAbortMultipartUpload(request) && request.path.endsWith("/broken.fits"));
      expect(aborts.map((request) => request.status)).toEqual([500, 204]);
      // Aborted before the attempt ended: nothing of it stays at the destination.
      expect(await incompleteUploads(key)).toEqual([]);

      destination.failWhen(null);
      const [job] = await deps().db.execute<{ id: string }>(
        sql`select id::text from graphile_worker.jobs where key = ${`deliver:${fileId}:${destinationIds.archive}`}`,
      );
      await deps().db.execute(sql`select graphile_worker.reschedule_jobs(array[${job!.id}]::bigint[], run_at => now())`);
      expect(await deliveryWhen(observation.id, fileId, "the delivery", (delivery) => delivery.status === "delivered")).toMatchObject({ attempts: 2 });
      const stored = await store().send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
      expect(sha(await stored.Body!.transformToByteArray())).toBe(sha(bytes));
      expect(await incompleteUploads(key)).toEqual([]);
    } finally {
      destination.failWhen(null);
    }
  });

  it("the upload a killed attempt left at the file's key is aborted by the next attempt", async () => {
    const observation = await observationTo(destinationIds.archive);
    const key = keyOf(observation, "killed.fits");
    const left = await leftUpload(key);
    expect(await incompleteUploads(key)).toEqual([{ key, uploadId: left }]);

    const fileId = await upload(observation.id, "killed.fits", randomBytes(7 * MiB));
    expect(await deliveryWhen(observation.id, fileId, "the delivery", (delivery) => delivery.status === "delivered")).toMatchObject({ attempts: 1 });
    expect(await incompleteUploads(key)).toEqual([]);
  });

  it("the daily abort_stale_uploads job aborts those older than a day under Meridian's keys at each S3 destination, past one down or unlisting", async () => {
    const meridians = "meridian/Comets/Old (obs_00killed0000000000000000)/left.fits";
    const notMeridians = ["meridian/notes/todo.txt", "elsewhere/Comets/Old (obs_00killed0000000000000000)/left.fits"];
    const unlisted = "unlisted/Comets/Old (obs_00killed0000000000000000)/left.fits";
    const left = await leftUpload(meridians);
    for (const key of [...notMeridians, unlisted]) await leftUpload(key);

    // Begun just now: not yet abandoned.
    const today = laterWithLog(0);
    const sweepsToday = await abortStaleDestinationUploads({ deps: today.deps });
    expect(sweepsToday.find((sweep) => sweep.destinationId === destinationIds.archive)).toMatchObject({ aborted: 0 });
    expect(await incompleteUploads(meridians)).toEqual([{ key: meridians, uploadId: left }]);

    const tomorrow = laterWithLog(DAY + 60_000);
    const sweeps = await abortStaleDestinationUploads({ deps: tomorrow.deps });
    expect(sweeps.filter((sweep) => sweep.organizationId === organizationId)).toEqual([
      { organizationId, destinationId: destinationIds.down, aborted: 0, error: expect.stringContaining("S3 answered nothing") },
      { organizationId, destinationId: destinationIds.withoutListing, aborted: 0, unsupported: "ListMultipartUploads" },
      { organizationId, destinationId: destinationIds.archive, aborted: 1 },
    ]);
    expect(await incompleteUploads(meridians)).toEqual([]);
    // What is not Meridian's (or could not be listed) is left as it was.
    expect((await incompleteUploads("")).map((upload) => upload.key).sort()).toEqual([...notMeridians, unlisted].sort());
    // One line per destination; the refused listing once.
    const perDestination = (id: string) => tomorrow.lines.filter((line) => line.destinationId === id);
    expect(perDestination(destinationIds.withoutListing)).toEqual([expect.objectContaining({ msg: expect.stringContaining("ListMultipartUploads") })]);
    expect(perDestination(destinationIds.down)).toHaveLength(1);
    expect(perDestination(destinationIds.archive)).toEqual([expect.objectContaining({ aborted: 1 })]);

    // The job as the server's worker runs it (here with an age of nothing) does the same and completes.
    const another = await leftUpload(meridians);
    const begun = await initiatedAt(meridians, another);
    await until("a moment after the upload began", async () => Date.now() > begun.getTime());
    await inTransaction(deps(), (t) => addJob({ t, name: "abort_stale_uploads", payload: { olderThanMs: 0 } }));
    await until("the job to abort it", async () => (await incompleteUploads(meridians)).every((upload) => upload.uploadId !== another));
    const outcome = await until("the abort_stale_uploads job to end or fail", async () => {
      const [job] = await deps().db.execute<{ last_error: string | null }>(
        sql`select last_error from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
             where t.identifier = 'abort_stale_uploads'`,
      );
      return job ? (job.last_error ?? undefined) : "completed";
    });
    expect(outcome).toBe("completed");
  });
});
