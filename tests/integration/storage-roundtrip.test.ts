import { createHash, randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { createObjectStorage, type ObjectStorage, type ObjectStorageConfig } from "@meridian/db";
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
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
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
