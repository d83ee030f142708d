import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { CreateBucketCommand, GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { startEmbeddedS3, type EmbeddedS3 } from "@meridian/db";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { startSmtpCapture } from "../support/smtp-capture";
import { startDriveReceiver, startDropboxReceiver } from "../support/storage-receivers";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

const ADMIN = { email: "delivery-admin@example.com", password: "delivery admin password" };
const KiB = 1024;
let server: TestServer;
let secondStore: EmbeddedS3;
let secondStoreDir: string;
let dropbox: Awaited<ReturnType<typeof startDropboxReceiver>>;
let drive: Awaited<ReturnType<typeof startDriveReceiver>>;
let capture: Awaited<ReturnType<typeof startSmtpCapture>>;
let owner: Account;
let storageManager: Account;
let plainMember: Account;
let stranger: Account;
let organizationId: string;
let projectId: string;
let personalProjectId: string;
let observatoryId: string;
let pluginKey: string;
const destinations: Record<"s3" | "dropbox" | "drive" | "brokenDropbox", string> = { s3: "", dropbox: "", drive: "", brokenDropbox: "" };

beforeAll(async () => {
  [dropbox, drive, capture] = await Promise.all([startDropboxReceiver(), startDriveReceiver(), startSmtpCapture()]);
  secondStoreDir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-second-s3-"));
  secondStore = await startEmbeddedS3({ directory: secondStoreDir });
  await s3Client().send(new CreateBucketCommand({ Bucket: "archive" }));
  ({ server } = await startServerWithAdmin(ADMIN, {
    // The worker runs in the server process, so deliveries really happen.
    MERIDIAN_ROLE: "all",
    SMTP_URL: capture.url,
    DROPBOX_API_URL: dropbox.url,
    DROPBOX_CONTENT_URL: dropbox.url,
    GOOGLE_OAUTH_URL: drive.url,
    GOOGLE_DRIVE_URL: drive.url,
    // Pieces above 512 KiB, of 256 KiB: the chunked paths without hundreds of megabytes.
    DELIVERY_LARGE_FILE_BYTES: String(512 * KiB),
    DELIVERY_CHUNK_BYTES: String(256 * KiB),
  }));
  [owner, storageManager, plainMember, stranger] = await Promise.all([
    createAccount(server),
    createAccount(server),
    createAccount(server),
    createAccount(server),
  ]);
  organizationId = (await createOrganization(owner)).id;
  await addOrganizationMember(owner, organizationId, storageManager, { can_manage_storage: true });
  await addOrganizationMember(owner, organizationId, plainMember);
  const organization = (await must(
    `/organizations/${organizationId}`,
    {
      method: "PUT",
      token: owner.token,
      json: {
        externalStorage: [
          {
            kind: "s3",
            label: "Archive bucket",
            settings: { endpoint: secondStore.endpoint, region: "us-east-1", bucket: "archive", prefix: "meridian/", forcePathStyle: true },
            secrets: { accessKeyId: secondStore.accessKeyId, secretAccessKey: secondStore.secretAccessKey },
          },
          {
            kind: "dropbox",
            label: "Dropbox",
            settings: { folder: "/Telescope" },
            secrets: { refreshToken: "dropbox-refresh-token", appKey: "dropbox-app-key", appSecret: "dropbox-app-secret" },
          },
          {
            kind: "google_drive",
            label: "Drive",
            settings: { folderId: "root-folder" },
            secrets: { refreshToken: "drive-refresh-token", clientId: "drive-client-id", clientSecret: "drive-client-secret" },
          },
          {
            kind: "dropbox",
            label: "Revoked",
            settings: { folder: "/Old" },
            secrets: { refreshToken: "revoked", appKey: "dropbox-app-key", appSecret: "not-the-secret" },
          },
        ],
      },
    },
    200,
  )) as { externalStorage: Array<{ id: string; label: string }> };
  const idOf = (label: string) => organization.externalStorage.find((item) => item.label === label)!.id;
  Object.assign(destinations, { s3: idOf("Archive bucket"), dropbox: idOf("Dropbox"), drive: idOf("Drive"), brokenDropbox: idOf("Revoked") });
  projectId = ((await must("/projects", { method: "POST", token: owner.token, json: { name: "Comets/2026", organizationId } }, 201)) as { id: string }).id;
  personalProjectId = ((await must("/projects", { method: "POST", token: owner.token, json: { name: "Mine" } }, 201)) as { id: string }).id;
  observatoryId = (await createObservatory(owner)).id;
  pluginKey = (
    (await must(`/observatories/${observatoryId}/api-keys`, { method: "POST", token: owner.token, json: { name: "plugin" } }, 201)) as { key: string }
  ).key;
});
afterAll(async () => {
  await server?.stop();
  await Promise.all([secondStore?.stop(), dropbox?.stop(), drive?.stop(), capture?.stop()]);
  if (secondStoreDir) await fs.rm(secondStoreDir, { recursive: true, force: true });
});
const { must, call, createOrganization, addOrganizationMember, createObservatory } = jsonApi(() => server);

function s3Client() {
  return new S3Client({
    endpoint: secondStore.endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: secondStore.accessKeyId, secretAccessKey: secondStore.secretAccessKey },
  });
}

interface Delivery {
  destinationId: string;
  status: string;
  attempts: number;
  remotePath: string | null;
  deliveredAt: string | null;
  error: string | null;
}
interface StoredFile {
  id: string;
  filename: string;
  deliveries: Delivery[];
}

const target = { name: "Comet", ra: 10, dec: 20, exposures: [{ filter: "L", exposureSeconds: 1, count: 1, binning: 1 }] };
const observationTo = async (destinationId: string | null, name = `Comet ${randomBytes(2).toString("hex")}`) =>
  (await must(
    "/observations",
    { method: "POST", token: owner.token, json: { name, projectId, observatoryId, targets: [target], storageDestinationId: destinationId } },
    201,
  )) as {
    id: string;
    name: string;
    storageDestinationId: string | null;
  };
const upload = async (observationId: string, filename: string, bytes: Buffer) => {
  const response = await server.request(`/observations/${observationId}/files?filename=${encodeURIComponent(filename)}`, {
    method: "POST",
    token: pluginKey,
    headers: { "content-type": "application/fits" },
    body: new Uint8Array(bytes),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as StoredFile;
};
const fileOf = async (observationId: string, fileId: string) =>
  ((await must(`/observations/${observationId}/files`, { token: owner.token }, 200)) as { items: StoredFile[] }).items.find((file) => file.id === fileId)!;
const deliveryOf = async (observationId: string, fileId: string, status: string) =>
  until(
    `the delivery of ${fileId} to be ${status}`,
    async () => {
      const delivery = (await fileOf(observationId, fileId)).deliveries[0];
      return delivery?.status === status ? delivery : undefined;
    },
    { timeoutMs: 60_000 },
  );
/** The waiting attempt of a delivery, as graphile-worker holds it. */
const waitingAttempt = async (fileId: string, destinationId: string) => {
  const [job] = await server.server.runtime.deps.db.execute<{ id: string; run_at: string }>(
    sql`select id::text, run_at::text from graphile_worker.jobs where key = ${`deliver:${fileId}:${destinationId}`} and locked_at is null`,
  );
  return job;
};
/** Runs a delivery's waiting attempt now rather than minutes or hours later: the backoff is the test's to skip, not to wait for. */
const runWaitingAttemptNow = async (fileId: string, destinationId: string) => {
  const job = await until("the next attempt to be queued", () => waitingAttempt(fileId, destinationId));
  await server.server.runtime.deps.db.execute(sql`select graphile_worker.reschedule_jobs(array[${job.id}]::bigint[], run_at => now())`);
};
const sha = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

describe("delivery to an organization's storage destination", () => {
  it("copies each file to a second S3 store under prefix/project/observation (id)/filename, whole and multipart, checked by size", async () => {
    const observation = await observationTo(destinations.s3);
    expect(observation.storageDestinationId).toBe(destinations.s3);
    const small = randomBytes(10 * KiB);
    const large = randomBytes(6 * 1024 * KiB);
    const files = [await upload(observation.id, "light 1.fits", small), await upload(observation.id, "light 2.fits", large)];
    expect(files[0]!.deliveries).toEqual([
      { destinationId: destinations.s3, status: "pending", attempts: 0, remotePath: null, deliveredAt: null, error: null },
    ]);
    for (const [index, bytes] of [small, large].entries()) {
      const delivery = await deliveryOf(observation.id, files[index]!.id, "delivered");
      const key = `meridian/Comets-2026/${observation.name} (${observation.id})/light ${index + 1}.fits`;
      expect(delivery).toMatchObject({ attempts: 1, remotePath: `s3://archive/${key}`, error: null });
      const object = await s3Client().send(new GetObjectCommand({ Bucket: "archive", Key: key }));
      expect(sha(Buffer.from(await object.Body!.transformToByteArray()))).toBe(sha(bytes));
    }
  });

  it("sends to Dropbox with a refreshed token: one upload for a small file, an upload session in chunks above the size, as documented", async () => {
    const observation = await observationTo(destinations.dropbox);
    const small = randomBytes(3 * KiB);
    const large = randomBytes(700 * KiB);
    const [first, second] = [await upload(observation.id, "flat.fits", small), await upload(observation.id, "dark.fits", large)];
    const folder = `/Telescope/Comets-2026/${observation.name} (${observation.id})`;
    expect(await deliveryOf(observation.id, first.id, "delivered")).toMatchObject({ remotePath: `${folder}/flat.fits` });
    expect(await deliveryOf(observation.id, second.id, "delivered")).toMatchObject({ remotePath: `${folder}/dark.fits` });
    expect(sha(dropbox.files.get(`${folder}/flat.fits`)!)).toBe(sha(small));
    expect(sha(dropbox.files.get(`${folder}/dark.fits`)!)).toBe(sha(large));
    const sessionCalls = dropbox.requests
      .filter((request) => request.path.startsWith("/2/files/upload_session/"))
      .map((request) => request.path.split("/").at(-1));
    expect(sessionCalls).toEqual(["start", "append_v2", "finish"]);
    expect(Math.max(...dropbox.requests.map((request) => request.bytes))).toBeLessThanOrEqual(256 * KiB);
    expect(dropbox.problems).toEqual([]);
  });

  it("never climbs above the destination's folder: a project named .. is a folder of that name's own", async () => {
    const climbing = (await must("/projects", { method: "POST", token: owner.token, json: { name: "..", organizationId } }, 201)) as { id: string };
    const observation = (await must(
      "/observations",
      {
        method: "POST",
        token: owner.token,
        json: { name: "Up", projectId: climbing.id, observatoryId, targets: [target], storageDestinationId: destinations.dropbox },
      },
      201,
    )) as { id: string };
    const file = await upload(observation.id, "up.fits", randomBytes(KiB));
    const remotePath = `/Telescope/--/Up (${observation.id})/up.fits`;
    expect(await deliveryOf(observation.id, file.id, "delivered")).toMatchObject({ remotePath });
    expect(dropbox.files.has(remotePath)).toBe(true);
  });

  it("fetches a new token when the last one is about to expire", async () => {
    dropbox.tokens.expiresIn = 30;
    const issuedBefore = dropbox.tokens.issued;
    const refusedBefore = dropbox.tokens.refused;
    try {
      const observation = await observationTo(destinations.dropbox);
      const file = await upload(observation.id, "long.fits", randomBytes(600 * KiB));
      await deliveryOf(observation.id, file.id, "delivered");
      // Start, append and finish: each with a token of its own, none refused as expired.
      expect(dropbox.tokens.issued - issuedBefore).toBeGreaterThanOrEqual(3);
      expect(dropbox.tokens.refused).toBe(refusedBefore);
    } finally {
      dropbox.tokens.expiresIn = 3600;
    }
  });

  it("waits as long as a 429's Retry-After asks before the next attempt, then delivers", async () => {
    const observation = await observationTo(destinations.dropbox);
    dropbox.failNext.push({ status: 429, retryAfter: "7200" });
    const file = await upload(observation.id, "busy.fits", randomBytes(2 * KiB));
    // An attempt counts as it begins; its error comes with its end.
    const failed = await until("the first attempt to fail", async () => {
      const delivery = (await fileOf(observation.id, file.id)).deliveries[0]!;
      return delivery.error !== null ? delivery : undefined;
    });
    expect(failed).toMatchObject({ status: "pending", attempts: 1, error: "Dropbox asked to slow down (429)" });
    const next = await until("the next attempt to be queued", () => waitingAttempt(file.id, destinations.dropbox));
    // Two hours (Retry-After) rather than the first wait of a minute.
    expect(Date.parse(next.run_at) - Date.now()).toBeGreaterThan(7000 * 1000);
    await runWaitingAttemptNow(file.id, destinations.dropbox);
    expect(await deliveryOf(observation.id, file.id, "delivered")).toMatchObject({ attempts: 2, error: null });
  });

  it("resumes a Drive upload whose chunk broke off where Drive says it stopped, in folders it finds or makes", async () => {
    const observation = await observationTo(destinations.drive);
    const bytes = randomBytes(900 * KiB);
    drive.control.cutNextChunk = true;
    const file = await upload(observation.id, "m42.fits", bytes);
    expect(await deliveryOf(observation.id, file.id, "delivered")).toMatchObject({
      attempts: 1,
      remotePath: `Comets-2026/${observation.name} (${observation.id})/m42.fits`,
    });
    const stored = [...drive.items.values()].filter((item) => item.name === "m42.fits");
    expect(stored).toHaveLength(1);
    expect(sha(stored[0]!.bytes)).toBe(sha(bytes));
    const ranges = drive.requests.filter((request) => request.headers["content-range"]).map((request) => String(request.headers["content-range"]));
    expect(ranges).toContain(`bytes */${bytes.length}`);
    expect(drive.problems).toEqual([]);
    // A second file of the same observation goes into the same folders.
    await deliveryOf(observation.id, (await upload(observation.id, "m43.fits", randomBytes(KiB))).id, "delivered");
    expect([...drive.items.values()].filter((item) => item.folder && item.name === `${observation.name} (${observation.id})`)).toHaveLength(1);
  });

  it("does not copy a file twice when an attempt runs again after it was written (a worker restarted mid-way)", async () => {
    for (const destinationId of [destinations.dropbox, destinations.drive, destinations.s3]) {
      const observation = await observationTo(destinationId);
      const file = await upload(observation.id, "again.fits", randomBytes(4 * KiB));
      const first = await deliveryOf(observation.id, file.id, "delivered");
      // What a worker killed after the write and before the record sees: the attempt again, with the file already there.
      await must(`/files/${file.id}/deliveries/${destinationId}/retry`, { method: "POST", token: owner.token }, 202);
      const second = await deliveryOf(observation.id, file.id, "delivered");
      expect(second.remotePath).toBe(first.remotePath);
    }
    expect([...dropbox.files.keys()].filter((key) => key.endsWith("again.fits"))).toHaveLength(1);
    expect([...drive.items.values()].filter((item) => item.name === "again.fits")).toHaveLength(1);
  });

  it("gives up after 8 attempts, tells the owner and the storage managers, and starts over on retry", async () => {
    const observation = await observationTo(destinations.brokenDropbox);
    const file = await upload(observation.id, "lost.fits", randomBytes(KiB));
    for (let attempt = 1; attempt < 8; attempt += 1) {
      await until(`attempt ${attempt} to fail`, async () => (await fileOf(observation.id, file.id)).deliveries[0]!.attempts === attempt);
      await runWaitingAttemptNow(file.id, destinations.brokenDropbox);
    }
    const failed = await deliveryOf(observation.id, file.id, "failed");
    expect(failed).toMatchObject({ attempts: 8, remotePath: null });
    expect(failed.error).toContain("Dropbox (token) answered 400");
    expect(failed.error).not.toContain("not-the-secret");
    const told = await until("the failure emails", async () => {
      const to = capture.messages.filter((mail) => mail.subject === "lost.fits could not be delivered").flatMap((mail) => mail.to);
      return to.length >= 2 ? to : undefined;
    });
    expect(told.sort()).toEqual([owner.email, storageManager.email].sort());
    expect(await waitingAttempt(file.id, destinations.brokenDropbox)).toBeUndefined();

    const retried = (await must(`/files/${file.id}/deliveries/${destinations.brokenDropbox}/retry`, { method: "POST", token: owner.token }, 202)) as StoredFile;
    expect(retried.deliveries[0]).toMatchObject({ status: "pending", attempts: 0, error: null });
  });
});

describe("storage destinations: choosing one, retrying, testing", () => {
  it("refuses a destination that is not one of the project's organization's with 400 UNKNOWN_DESTINATION", async () => {
    const body = { name: "Nowhere", observatoryId, targets: [target] };
    const personal = await call("/observations", {
      method: "POST",
      token: owner.token,
      json: { ...body, projectId: personalProjectId, storageDestinationId: destinations.s3 },
    });
    expect(personal.status).toBe(400);
    expect(personal.body).toMatchObject({ code: "UNKNOWN_DESTINATION", errors: [{ path: "storageDestinationId" }] });
    const madeUp = await call("/observations", { method: "POST", token: owner.token, json: { ...body, projectId, storageDestinationId: "ext_made_up" } });
    expect(madeUp.body).toMatchObject({ code: "UNKNOWN_DESTINATION" });
    const observation = await observationTo(null);
    const changed = await call(`/observations/${observation.id}`, { method: "PUT", token: owner.token, json: { storageDestinationId: "ext_made_up" } });
    expect(changed.body).toMatchObject({ code: "UNKNOWN_DESTINATION" });
    const moved = (await must(
      `/observations/${observation.id}`,
      { method: "PUT", token: owner.token, json: { storageDestinationId: destinations.drive } },
      200,
    )) as {
      storageDestinationId: string;
    };
    expect(moved.storageDestinationId).toBe(destinations.drive);
    // A file of an observation without a destination has no deliveries.
    const plain = await observationTo(null);
    expect((await upload(plain.id, "local.fits", randomBytes(KiB))).deliveries).toEqual([]);
  });

  it("lets only the owner or an operator retry, and answers 401 first, 404 to who cannot see the file", async () => {
    const observation = await observationTo(destinations.s3);
    const file = await upload(observation.id, "guarded.fits", randomBytes(KiB));
    const path = `/files/${file.id}/deliveries/${destinations.s3}/retry`;
    await expectProblem(await server.request(path, { method: "POST" }), 401, "UNAUTHENTICATED");
    await expectProblem(await server.request(path, { method: "POST", token: stranger.token }), 404, "NOT_FOUND");
    await expectProblem(await server.request(`/files/${file.id}/deliveries/ext_other/retry`, { method: "POST", token: owner.token }), 404, "NOT_FOUND");
    // A project reader who neither owns it nor operates the observatory.
    await must(`/projects/${projectId}/members`, { method: "POST", token: owner.token, json: { email: plainMember.email, role: "member" } }, 201);
    await expectProblem(await server.request(path, { method: "POST", token: plainMember.token }), 403, "FORBIDDEN");
  });

  it("tests a destination by writing and removing a probe, says what went wrong in words without its secrets, for storage managers only", async () => {
    const test = (destinationId: string, token = storageManager.token) =>
      call(`/organizations/${organizationId}/external-storage/${destinationId}/test`, { method: "POST", token });
    for (const destinationId of [destinations.s3, destinations.dropbox, destinations.drive]) expect((await test(destinationId)).body).toEqual({ ok: true });
    expect(dropbox.files.has("/Telescope/.meridian-destination-test")).toBe(false);
    const broken = await test(destinations.brokenDropbox);
    expect(broken.body).toMatchObject({ ok: false, error: expect.stringContaining("Dropbox (token) answered 400") });
    expect(broken.text).not.toContain("not-the-secret");
    expect((await test(destinations.s3, plainMember.token)).body).toMatchObject({ code: "FORBIDDEN" });
    expect((await test(destinations.s3, stranger.token)).body).toMatchObject({ code: "NOT_FOUND" });
    expect((await test("ext_made_up")).body).toMatchObject({ code: "NOT_FOUND" });
    await expectProblem(
      await server.request(`/organizations/${organizationId}/external-storage/${destinations.s3}/test`, { method: "POST" }),
      401,
      "UNAUTHENTICATED",
    );
  });
});
