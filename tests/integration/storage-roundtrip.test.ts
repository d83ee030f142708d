import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  ListMultipartUploadsCommand,
  ListPartsCommand,
  S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { createObjectStorage, startEmbeddedS3, type EmbeddedS3, type ObjectStorage, type ObjectStorageConfig } from "@meridian/db";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** A stream that does not know its length: the storage must fall back to a multipart upload. */
function chunkedStream(data: Buffer, chunkSize = 64 * 1024): Readable {
  let offset = 0;
  return new Readable({
    read() {
      if (offset >= data.length) return this.push(null);
      // Copies, so nothing downstream can rely on the source buffer.
      this.push(Buffer.from(data.subarray(offset, offset + chunkSize)));
      offset += chunkSize;
    },
  });
}

function config(bucket: string): ObjectStorageConfig {
  return {
    endpoint: inject("s3Endpoint"),
    bucket,
    region: "us-east-1",
    ...inject("s3Credentials"),
    forcePathStyle: true,
  };
}

let storage: ObjectStorage;
const others: ObjectStorage[] = [];

beforeAll(async () => {
  storage = createObjectStorage(config(`roundtrip-${randomBytes(4).toString("hex")}`));
  await storage.ensureBucket();
});

afterAll(() => {
  storage?.destroy();
  for (const other of others) other.destroy();
});

describe("object storage over the S3 protocol", () => {
  it("streams ~12 MB of unknown length up (multipart) and back, byte for byte", async () => {
    const data = randomBytes(12 * 1024 * 1024 + 12_345);
    const key = `observations/${randomBytes(4).toString("hex")}/large.fits`;
    await storage.put(key, chunkedStream(data), { contentType: "application/fits" });

    const head = await storage.head(key);
    expect(head?.contentLength).toBe(data.length);

    const stored = await storage.get(key);
    expect(stored).toBeDefined();
    expect(stored!.contentType).toBe("application/fits");
    expect(stored!.contentLength).toBe(data.length);
    const back = await readAll(stored!.body);
    expect(back.length).toBe(data.length);
    expect(sha256(back)).toBe(sha256(data));
  });

  it("stores a small buffer and reads it back exactly", async () => {
    const data = Buffer.from(`hello ${randomBytes(8).toString("hex")}\n\u00e9\u0000binary`, "utf8");
    const key = `small/${randomBytes(4).toString("hex")}.txt`;
    await storage.put(key, data, { contentType: "text/plain" });
    const stored = await storage.get(key);
    expect(stored?.contentType).toBe("text/plain");
    const back = await readAll(stored!.body);
    expect(back.equals(data)).toBe(true);
    expect((await storage.head(key))?.contentLength).toBe(data.length);
  });

  it("streams a small body of unknown length (single part) unchanged", async () => {
    const data = randomBytes(200_000);
    const key = `small-stream/${randomBytes(4).toString("hex")}`;
    await storage.put(key, chunkedStream(data, 10_000));
    const back = await readAll((await storage.get(key))!.body);
    expect(sha256(back)).toBe(sha256(data));
  });

  it("overwrites an object in place", async () => {
    const key = `overwrite/${randomBytes(4).toString("hex")}`;
    await storage.put(key, Buffer.from("first version"));
    await storage.put(key, Buffer.from("second"));
    expect((await readAll((await storage.get(key))!.body)).toString()).toBe("second");
  });

  it("copies an object server side, keys with spaces included, and lists keys with their size and time", async () => {
    const prefix = `copy-${randomBytes(4).toString("hex")}`;
    await storage.put(`${prefix}/a file.fits`, Buffer.from("twelve bytes"));
    await storage.copy(`${prefix}/a file.fits`, `${prefix}/quarantine/a file.fits`);
    expect((await readAll((await storage.get(`${prefix}/quarantine/a file.fits`))!.body)).toString()).toBe("twelve bytes");
    const listed = [];
    for await (const page of storage.list(`${prefix}/`)) listed.push(...page);
    expect(listed.map(({ key, size }) => ({ key, size }))).toEqual([
      { key: `${prefix}/a file.fits`, size: 12 },
      { key: `${prefix}/quarantine/a file.fits`, size: 12 },
    ]);
    expect(listed.every((object) => object.lastModified instanceof Date && Date.now() - object.lastModified.getTime() < 3_600_000)).toBe(true);
  });

  it("lists more than one page (1,000 keys) in key order, every key once", async () => {
    const prefix = `many-${randomBytes(4).toString("hex")}/`;
    const keys = Array.from({ length: 1_010 }, (_, index) => `${prefix}${String(index).padStart(5, "0")}`);
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < keys.length) await storage.put(keys[next++]!, Buffer.from("x"));
      }),
    );
    const pages: number[] = [];
    const listed: string[] = [];
    for await (const page of storage.list(prefix)) {
      pages.push(page.length);
      listed.push(...page.map((object) => object.key));
    }
    expect(pages).toEqual([1000, 10]);
    expect(listed).toEqual(keys);
  });

  it("answers undefined for a missing key on get and head, and delete removes", async () => {
    const key = `missing/${randomBytes(4).toString("hex")}`;
    expect(await storage.get(key)).toBeUndefined();
    expect(await storage.head(key)).toBeUndefined();

    await storage.put(key, Buffer.from("short-lived"));
    expect(await storage.head(key)).toEqual({ contentLength: 11 });
    await storage.delete(key);
    expect(await storage.head(key)).toBeUndefined();
    expect(await storage.get(key)).toBeUndefined();
    // Deleting what is not there is not an error (S3 semantics).
    await expect(storage.delete(key)).resolves.toBeUndefined();
  });

  it("pings a reachable bucket and rejects for a bucket that does not exist", async () => {
    await expect(storage.ping()).resolves.toBeUndefined();
    const missing = createObjectStorage(config(`absent-${randomBytes(4).toString("hex")}`));
    others.push(missing);
    await expect(missing.ping()).rejects.toBeDefined();
  });

  it("lets several processes ensure the same new bucket at the same time", async () => {
    const bucket = `race-${randomBytes(4).toString("hex")}`;
    const racers = Array.from({ length: 4 }, () => createObjectStorage(config(bucket)));
    others.push(...racers);
    const results = await Promise.allSettled(racers.map((racer) => racer.ensureBucket()));
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "fulfilled", "fulfilled", "fulfilled"]);
    await racers[0]!.put("after-race", Buffer.from("ok"));
    expect((await readAll((await racers[3]!.get("after-race"))!.body)).toString()).toBe("ok");
  });
});

describe("incomplete multipart uploads in the embedded store, through @aws-sdk/client-s3", () => {
  let directory: string;
  let embedded: EmbeddedS3;
  let client: S3Client;
  let store: ObjectStorage;
  const Bucket = "multipart";
  beforeAll(async () => {
    // A store of its own, so its folder can be looked into.
    directory = await fs.mkdtemp(path.join(os.tmpdir(), "multipart-s3-"));
    embedded = await startEmbeddedS3({ directory });
    client = new S3Client({
      endpoint: embedded.endpoint,
      region: "us-east-1",
      forcePathStyle: true,
      credentials: { accessKeyId: embedded.accessKeyId, secretAccessKey: embedded.secretAccessKey },
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
    store = createObjectStorage({
      ...config(Bucket),
      endpoint: embedded.endpoint,
      accessKeyId: embedded.accessKeyId,
      secretAccessKey: embedded.secretAccessKey,
    });
    await store.ensureBucket();
  });
  afterAll(async () => {
    client?.destroy();
    store?.destroy();
    await embedded?.stop();
    if (directory) await fs.rm(directory, { recursive: true, force: true });
  });
  const begin = async (Key: string) => (await client.send(new CreateMultipartUploadCommand({ Bucket, Key }))).UploadId!;
  const listed = async (input: { Prefix?: string; Delimiter?: string; KeyMarker?: string; UploadIdMarker?: string; MaxUploads?: number }) =>
    client.send(new ListMultipartUploadsCommand({ Bucket, ...input }));
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: { name?: string; $metadata?: { httpStatusCode?: number } }) => ({ name: error.name, status: error.$metadata?.httpStatusCode }),
    );

  it("lists uploads by key and then by start, under a prefix, with when each began, page by page with key-marker and upload-id-marker", async () => {
    const before = Date.now();
    const first = await begin("list/a.fits");
    const second = await begin("list/a.fits");
    const other = await begin("list/b.fits");
    await begin("elsewhere/c.fits");
    const all = await listed({ Prefix: "list/" });
    expect(all.IsTruncated).toBe(false);
    expect(all.Uploads!.map(({ Key, UploadId }) => ({ Key, UploadId }))).toEqual([
      { Key: "list/a.fits", UploadId: first },
      { Key: "list/a.fits", UploadId: second },
      { Key: "list/b.fits", UploadId: other },
    ]);
    for (const upload of all.Uploads!) {
      expect(upload.Initiated).toBeInstanceOf(Date);
      // The file system keeps whole seconds on some systems.
      expect(upload.Initiated!.getTime()).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
      expect(upload.Initiated!.getTime()).toBeLessThanOrEqual(Date.now());
    }

    const page1 = await listed({ Prefix: "list/", MaxUploads: 2 });
    expect(page1).toMatchObject({ IsTruncated: true, NextKeyMarker: "list/a.fits", NextUploadIdMarker: second });
    expect(page1.Uploads!.map((upload) => upload.UploadId)).toEqual([first, second]);
    const page2 = await listed({ Prefix: "list/", MaxUploads: 2, KeyMarker: page1.NextKeyMarker, UploadIdMarker: page1.NextUploadIdMarker });
    expect(page2.IsTruncated).toBe(false);
    expect(page2.Uploads!.map((upload) => upload.UploadId)).toEqual([other]);
    // Between the two uploads of one key, and a key-marker alone going past every upload of its key.
    expect((await listed({ Prefix: "list/", KeyMarker: "list/a.fits", UploadIdMarker: first })).Uploads!.map((upload) => upload.UploadId)).toEqual([
      second,
      other,
    ]);
    expect((await listed({ Prefix: "list/", KeyMarker: "list/a.fits" })).Uploads!.map((upload) => upload.UploadId)).toEqual([other]);
    // A delimiter rolls keys up into common prefixes.
    const rolled = await listed({ Delimiter: "/" });
    expect(rolled.Uploads ?? []).toEqual([]);
    expect(rolled.CommonPrefixes!.map((prefix) => prefix.Prefix)).toEqual(["elsewhere/", "list/"]);
    expect(await listed({ Prefix: "nothing/" })).toMatchObject({ IsTruncated: false });
  });

  it("lists an upload's parts with their sizes, and an abort deletes the parts: the upload is gone for every request (404 NoSuchUpload)", async () => {
    const Key = "abort/frame.fits";
    const UploadId = await begin(Key);
    await client.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 1, Body: Buffer.alloc(1000, 1) }));
    await client.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 2, Body: Buffer.alloc(20, 2) }));
    const parts = await client.send(new ListPartsCommand({ Bucket, Key, UploadId }));
    expect(parts.Parts!.map(({ PartNumber, Size }) => ({ PartNumber, Size }))).toEqual([
      { PartNumber: 1, Size: 1000 },
      { PartNumber: 2, Size: 20 },
    ]);
    expect((await client.send(new ListPartsCommand({ Bucket, Key, UploadId, MaxParts: 1 }))).NextPartNumberMarker).toBe("1");
    expect(await store.uploadedBytes({ key: Key, uploadId: UploadId })).toBe(1020);
    const partsFolder = path.join(directory, Bucket, "._S3rver_uploads", UploadId);
    expect((await fs.readdir(partsFolder)).sort()).toEqual(["1", "1.md5", "2", "2.md5", "key", "metadata"]);

    const aborted = await client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId }));
    expect(aborted.$metadata.httpStatusCode).toBe(204);
    await expect(fs.stat(partsFolder)).rejects.toMatchObject({ code: "ENOENT" });
    expect((await listed({ Prefix: "abort/" })).Uploads ?? []).toEqual([]);
    const gone = { name: "NoSuchUpload", status: 404 };
    expect(await failure(client.send(new ListPartsCommand({ Bucket, Key, UploadId })))).toEqual(gone);
    expect(await failure(client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId })))).toEqual(gone);
    expect(await failure(client.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 3, Body: Buffer.from("late") })))).toEqual(gone);
    expect(
      await failure(client.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: "x" }] } }))),
    ).toEqual(gone);
    // A late part did not bring the upload back.
    await expect(fs.stat(partsFolder)).rejects.toMatchObject({ code: "ENOENT" });
    // Unknown ids, ids that would name another path, and the right id under another key: no such upload.
    const live = await begin(Key);
    for (const [key, uploadId] of [
      [Key, "0123456789abcdef0123456789abcdef"],
      [Key, "../../multipart"],
      ["abort/other.fits", live],
    ] as const)
      expect(await failure(client.send(new AbortMultipartUploadCommand({ Bucket, Key: key, UploadId: uploadId })))).toEqual(gone);
    expect((await listed({ Prefix: "abort/" })).Uploads!.map((upload) => upload.UploadId)).toEqual([live]);
    // The wrapper: abort is idempotent, and bytes of a gone upload are unknown.
    await store.abortUpload({ key: Key, uploadId: live });
    await store.abortUpload({ key: Key, uploadId: live });
    expect(await store.uploadedBytes({ key: Key, uploadId: live })).toBeUndefined();
  });

  it("lists more than a page (1,000 uploads) through the storage wrapper, every upload once, by key", async () => {
    const keys = Array.from({ length: 1_005 }, (_, index) => `many/${String(index).padStart(5, "0")}`);
    const ids = new Array<string>(keys.length);
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < keys.length) {
          const index = next++;
          ids[index] = await begin(keys[index]!);
        }
      }),
    );
    const pages: number[] = [];
    const seen: string[] = [];
    for await (const page of store.listIncompleteUploads("many/")) {
      pages.push(page.length);
      seen.push(...page.map((upload) => upload.uploadId));
    }
    expect(pages).toEqual([1000, 5]);
    expect(seen).toEqual(ids);
  });

  it("aborts the multipart upload when the body's stream fails, and throws the stream's error", async () => {
    let sent = 0;
    const body = new Readable({
      read() {
        // Past the 8 MiB part size, so a multipart upload has begun when it breaks.
        if (sent >= 9 * 1024 * 1024) return this.destroy(new Error("the observatory's connection was reset"));
        sent += 1024 * 1024;
        this.push(Buffer.alloc(1024 * 1024, 3));
      },
    });
    await expect(store.put("broken/frame.fits", body)).rejects.toThrow("the observatory's connection was reset");
    expect(sent).toBeGreaterThan(8 * 1024 * 1024);
    const left = [];
    for await (const page of store.listIncompleteUploads()) left.push(...page);
    expect(left.filter((upload) => upload.key.startsWith("broken/"))).toEqual([]);
    expect(await store.head("broken/frame.fits")).toBeUndefined();
  });
});
