import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { filesCollection } from "@meridian/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { freePort } from "../../scripts/free-port";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { isRunning, spawnEntry, terminate, waitForOutput, type NodeProcess } from "../support/node-process";
import { sharedProcessEnv, type TestServer } from "../support/test-server";
import { readZip } from "../support/zip-reading";

const ADMIN = { email: "observation-archive-memory-admin@example.com", password: "observation archive memory admin password" };
const MiB = 1024 * 1024;
const FILES = 4;
const FILE_BYTES = 128 * MiB;
let server: TestServer;
let child: NodeProcess;
let childUrl: string;
let owner: Account;
let workDir: string;

beforeAll(async () => {
  ({ server } = await startServerWithAdmin(ADMIN));
  owner = await createAccount(server);
  workDir = await fsp.mkdtemp(path.join(os.tmpdir(), "meridian-archive-memory-"));
  // The server measured runs alone in its own process, over the same database and S3 store.
  const port = await freePort();
  child = spawnEntry(
    "server",
    {
      ...sharedProcessEnv(server, path.join(workDir, "data")),
      NODE_ENV: "test",
      WEB_DIST_DIR: path.join(workDir, "no-web"),
      PORT: String(port),
      MERIDIAN_ROLE: "server",
    },
    "archive-server",
  );
  await waitForOutput(child, /listening on/, 60_000);
  childUrl = `http://127.0.0.1:${port}`;
}, 120_000);
afterAll(async () => {
  if (child && isRunning(child)) await terminate(child, 20_000);
  await server?.stop();
  if (workDir) await fsp.rm(workDir, { recursive: true, force: true });
}, 60_000);
const { must } = jsonApi(() => server);

/** `bytes` of random data, a mebibyte at a time. */
function* randomChunks(bytes: number) {
  for (let offset = 0; offset < bytes; offset += MiB) yield randomBytes(Math.min(MiB, bytes - offset));
}

/** Stores a file of `bytes` straight into object storage and records it, as an upload would. */
async function storeFile(observation: { id: string; observatoryId: string }, filename: string, bytes: number) {
  const { storage, db } = server.server.runtime.deps;
  const hash = createHash("sha256");
  const id = filesCollection.newId();
  const objectKey = `observations/${observation.id}/${id}`;
  const body = Readable.from(
    (function* () {
      for (const chunk of randomChunks(bytes)) {
        hash.update(chunk);
        yield chunk;
      }
    })(),
  );
  await storage.put(objectKey, body, { contentType: "application/fits" });
  const sha256 = hash.digest("hex");
  await filesCollection.insert(
    db,
    {
      observationId: observation.id,
      observatoryId: observation.observatoryId,
      filename,
      sizeBytes: bytes,
      sha256,
      contentType: "application/fits",
      kind: "image",
      previewOfId: null,
      objectKey,
    },
    id,
  );
  return { filename, sha256 };
}

const memoryOf = (pid: number) => {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)![1]) * 1024;
  return { rss: kib("VmRSS"), peak: kib("VmHWM") };
};

/** Downloads the archive from the child server into `file`, sampling the child's RSS every 8 MiB read. */
async function download(observationId: string, file: string) {
  const response = await fetch(`${childUrl}/observations/${observationId}/files/archive`, { headers: { authorization: `Bearer ${owner.token}` } });
  expect(response.status).toBe(200);
  let read = 0;
  let nextSample = 0;
  let highest = 0;
  const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
  body.on("data", (chunk: Buffer) => {
    read += chunk.length;
    if (read < nextSample) return;
    nextSample = read + 8 * MiB;
    highest = Math.max(highest, memoryOf(child.child.pid!).rss);
  });
  await pipeline(body, fs.createWriteStream(file));
  return { bytes: read, length: Number(response.headers.get("content-length")), highestRss: highest };
}

describe("a large observation's ZIP", () => {
  it(`streams ${(FILES * FILE_BYTES) / MiB} MiB through S3 while the server's memory stays flat`, async () => {
    const observatory = (await must("/observatories", { method: "POST", token: owner.token, json: { name: "Big files" } }, 201)) as { id: string };
    const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: "Big files" } }, 201)) as { id: string };
    const create = async (name: string) => {
      const json = {
        name,
        projectId: project.id,
        observatoryId: observatory.id,
        targets: [{ name: "M42", ra: 83.82, dec: -5.39, exposures: [{ filter: "Ha", exposureSeconds: 300, count: 12, binning: 1 }] }],
      };
      return { ...((await must("/observations", { method: "POST", token: owner.token, json }, 201)) as { id: string }), observatoryId: observatory.id };
    };
    // A small archive first, so code loaded on first use is not counted as growth.
    const small = await create("Warm-up");
    await storeFile(small, "warm-up.fits", 2 * MiB);
    await download(small.id, path.join(workDir, "warm-up.zip"));

    const large = await create("Large set");
    const stored = [];
    for (let index = 0; index < FILES; index += 1) stored.push(await storeFile(large, `frame-${index}.fits`, FILE_BYTES));
    const pid = child.child.pid!;
    const before = memoryOf(pid).rss;
    // Resets VmHWM to the current RSS, so the peak read after the download is the download's.
    fs.writeFileSync(`/proc/${pid}/clear_refs`, "5");
    const zipFile = path.join(workDir, "large.zip");
    const { bytes, length, highestRss } = await download(large.id, zipFile);
    const peak = memoryOf(pid).peak;

    expect(bytes).toBe(length);
    expect(bytes).toBeGreaterThan(FILES * FILE_BYTES);
    // Holding the set would take 512 MiB, one file 128; streaming holds a few chunks, plus what the garbage collector leaves lying.
    const growth = Math.max(peak, highestRss) - before;
    console.log(`archive of ${bytes} bytes: server RSS ${(before / MiB).toFixed(0)} MiB before, peak ${(peak / MiB).toFixed(0)} MiB`);
    expect(growth).toBeLessThan(FILE_BYTES * 0.75);

    const entries = await readZip(zipFile);
    expect(entries.map(({ name, sha256 }) => ({ filename: name, sha256 }))).toEqual(stored);
    expect(entries.every((entry) => entry.size === FILE_BYTES && entry.compressionMethod === 0)).toBe(true);
  }, 600_000);
});
