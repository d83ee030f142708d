import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { tables } from "@meridian/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { isRunning, terminate, type NodeProcess } from "../support/node-process";
import { observationWithKey } from "../support/observatory-keys";
import type { TestServer } from "../support/test-server";
import { serverOnSmallDisk } from "../support/server-on-small-disk";
import type { Tmpfs } from "../support/tmpfs";

/**
 * A full disk under the embedded object store, through a real server process: its DATA_DIR (and
 * so the store's files) on a 48 MB tmpfs, 28 MB of which a ballast file takes, as the rest of a
 * disk's data would. Uploads of 6 MB go up as one PutObject, of 12 MB as a multipart upload
 * (8 MB parts) whose completion copies the parts into the object: 12 MB more while they are there.
 */
const MB = 1024 * 1024;
const DISK_MB = 48;
const BALLAST_MB = 28;
const ADMIN = { email: "disk-full-admin@example.com", password: "disk full admin password" };

let setup: TestServer;
let disk: Tmpfs | undefined;
let proc: NodeProcess | undefined;
let url: string;
let key: string;
let observationId: string;
let ownerToken: string;
const { must } = jsonApi(() => setup);

beforeAll(async () => {
  // Accounts and the observation are made here; the uploads go to the spawned process, on the same database.
  ({ server: setup } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "server" }));
  const owner = await createAccount(setup);
  ownerToken = owner.token;
  const made = await observationWithKey(must, {
    owner,
    project: "Full disk",
    observation: {
      name: "Full disk",
      targets: [{ name: "Vega", ra: 279.23, dec: 38.78, exposures: [{ filter: "V", exposureSeconds: 1, count: 1, binning: 1 }] }],
    },
  });
  key = made.key;
  observationId = made.observation.id;
  ({ disk, proc, url } = await serverOnSmallDisk(setup, { megabytes: DISK_MB, ballastMegabytes: BALLAST_MB }));
}, 120_000);

afterAll(async () => {
  try {
    if (proc && isRunning(proc)) await terminate(proc, 20_000);
  } finally {
    await disk?.unmount();
    await setup?.stop();
  }
}, 60_000);

const bytes = (megabytes: number, fill: number) => Buffer.alloc(megabytes * MB, fill);
const upload = (filename: string, body: Buffer) =>
  fetch(`${url}/observations/${observationId}/files?filename=${filename}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/octet-stream" },
    body: new Uint8Array(body),
  });
const stored = async (filename: string, body: Buffer) => {
  const response = await upload(filename, body);
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { id: string }).id;
};
const refusedForSpace = async (filename: string, body: Buffer) => {
  const problem = await expectProblem(await upload(filename, body), 507, "INSUFFICIENT_STORAGE");
  expect(problem.detail).toMatch(/no room left for the file; nothing of it was kept/);
};

/** Every file the store holds under `folder` of the disk, by path from it. */
async function filesUnder(folder: string): Promise<string[]> {
  const entries = await fs.readdir(path.join(disk!.dir, folder), { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.relative(path.join(disk!.dir, folder), path.join(entry.parentPath, entry.name)));
}

describe("uploads to an embedded object store on a full disk", () => {
  const kept: Array<{ id: string; body: Buffer }> = [];

  it("answers each upload the disk has no room for 507 problem+json, keeps serving, leaves no object without a record nor an unfinished upload", async () => {
    kept.push({ id: await stored("first.fits", bytes(6, 1)), body: bytes(6, 1) });
    // The parts fit, their copy into the object does not: CompleteMultipartUpload fails (the write that killed the process).
    await refusedForSpace("whole-copy.fits", bytes(12, 2));
    kept.push({ id: await stored("second.fits", bytes(6, 3)), body: bytes(6, 3) });
    kept.push({ id: await stored("third.fits", bytes(6, 4)), body: bytes(6, 4) });
    // About 2 MB left: a PutObject, then an UploadPart, fails.
    await refusedForSpace("one-piece.fits", bytes(6, 5));
    await refusedForSpace("in-parts.fits", bytes(12, 6));

    expect(isRunning(proc!)).toBe(true);
    const download = await fetch(`${url}/files/${kept[0]!.id}/download`, { headers: { authorization: `Bearer ${ownerToken}` } });
    expect(download.status).toBe(200);
    expect(
      createHash("sha256")
        .update(Buffer.from(await download.arrayBuffer()))
        .digest("hex"),
    ).toBe(createHash("sha256").update(kept[0]!.body).digest("hex"));
    expect((await fetch(`${url}/api/health`)).status).toBe(200);

    const records = await setup.server.runtime.deps.db.select().from(tables.files).where(eq(tables.files.observationId, observationId));
    expect(records.map((record) => record.doc.filename).sort()).toEqual(["first.fits", "second.fits", "third.fits"]);
    const bucket = setup.env.S3_BUCKET;
    const held = await filesUnder(path.join("objects", bucket));
    // An object is three files (bytes, MD5, metadata); nothing half-written (`.partial`) and no upload's parts stay.
    expect(held.filter((file) => file.endsWith("._S3rver_object")).sort()).toEqual(records.map((record) => `${record.objectKey}._S3rver_object`).sort());
    expect(held.filter((file) => file.includes(".partial") || file.startsWith("._S3rver_uploads"))).toEqual([]);
  });

  it("takes uploads again once space is freed, without a restart", async () => {
    await fs.rm(path.join(disk!.dir, "ballast"));
    await stored("after-freeing.fits", bytes(12, 7));
    await stored("after-freeing-too.fits", bytes(6, 8));
    expect(isRunning(proc!)).toBe(true);
  });
});
