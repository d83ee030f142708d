import fs from "node:fs/promises";
import path from "node:path";
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { isStorageFull, startEmbeddedS3, type EmbeddedS3 } from "@meridian/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mountTmpfs, type Tmpfs } from "../support/tmpfs";

/**
 * Each write of the embedded S3-protocol store on a disk filled to the last byte: answered 507
 * InsufficientStorage, nothing of it left on the disk, what was stored before unchanged and still
 * read; and each succeeds once space is freed. The store's own test, at the protocol: the
 * server's uploads go through only some of these writes (disk-full-uploads.test.ts).
 */
const BUCKET = "full-disk";
const MB = 1024 * 1024;
let disk: Tmpfs | undefined;
let store: EmbeddedS3 | undefined;
let client: S3Client;

beforeAll(async () => {
  disk = await mountTmpfs({ megabytes: 24 });
  store = await startEmbeddedS3({ directory: path.join(disk.dir, "objects") });
  client = new S3Client({
    endpoint: store.endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: store.accessKeyId, secretAccessKey: store.secretAccessKey },
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    // A write the store never answers fails the test rather than hanging it.
    requestHandler: { requestTimeout: 10_000 },
  });
  await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
});
afterAll(async () => {
  try {
    client?.destroy();
    // A store that never answered a request (it crashed on the full disk) would hold its stop forever.
    await Promise.race([store?.stop(), new Promise((resolve) => setTimeout(resolve, 5_000))]);
  } finally {
    await disk?.unmount();
  }
});

const read = async (key: string) => Buffer.from(await (await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }))).Body!.transformToByteArray());
/** The error a write gave, for a write expected to fail. */
const failureOf = (write: Promise<unknown>) =>
  write.then(
    () => {
      throw new Error("the write succeeded on a full disk");
    },
    (error: unknown) => error as { name: string; $metadata: { httpStatusCode?: number } },
  );
const expectNoRoom = async (write: Promise<unknown>) => {
  const error = await failureOf(write);
  expect({ name: error.name, status: error.$metadata.httpStatusCode }).toEqual({ name: "InsufficientStorage", status: 507 });
  expect(isStorageFull(error)).toBe(true);
};

/** Fills the disk to its last byte with a ballast file, returned to be removed. */
async function fillDisk(): Promise<string> {
  const ballast = path.join(disk!.dir, "ballast");
  const handle = await fs.open(ballast, "w");
  try {
    for (;;) await handle.write(Buffer.alloc(MB));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  } finally {
    await handle.close();
  }
  return ballast;
}

/** Every file under the store's folder, by path from it. */
async function storeFiles(): Promise<string[]> {
  const root = path.join(disk!.dir, "objects");
  const entries = await fs.readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

describe("the embedded S3-protocol store on a full disk", () => {
  it("answers every write 507 InsufficientStorage, keeps nothing of it, serves reads, and writes again once space is freed", async () => {
    const original = Buffer.alloc(3 * MB, 1);
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: "kept", Body: original }));
    const begun = await client.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: "in-parts" }));
    const part = await client.send(
      new UploadPartCommand({ Bucket: BUCKET, Key: "in-parts", UploadId: begun.UploadId, PartNumber: 1, Body: Buffer.alloc(5 * MB, 2) }),
    );
    const before = (await storeFiles()).sort();
    const ballast = await fillDisk();

    // A new object, and an existing one replaced: the old bytes stay.
    await expectNoRoom(client.send(new PutObjectCommand({ Bucket: BUCKET, Key: "new", Body: Buffer.alloc(MB, 3) })));
    await expectNoRoom(client.send(new PutObjectCommand({ Bucket: BUCKET, Key: "kept", Body: Buffer.alloc(MB, 4) })));
    await expectNoRoom(client.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: "another" })));
    await expectNoRoom(
      client.send(new UploadPartCommand({ Bucket: BUCKET, Key: "in-parts", UploadId: begun.UploadId, PartNumber: 2, Body: Buffer.alloc(MB, 5) })),
    );
    const completion = { Bucket: BUCKET, Key: "in-parts", UploadId: begun.UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] } };
    await expectNoRoom(client.send(new CompleteMultipartUploadCommand(completion)));
    await expectNoRoom(client.send(new CopyObjectCommand({ Bucket: BUCKET, Key: "copy", CopySource: `${BUCKET}/kept` })));

    expect((await read("kept")).equals(original)).toBe(true);
    expect((await storeFiles()).sort()).toEqual(before);

    await fs.rm(ballast);
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: "new", Body: Buffer.alloc(MB, 3) }));
    await client.send(new CompleteMultipartUploadCommand(completion));
    await client.send(new CopyObjectCommand({ Bucket: BUCKET, Key: "copy", CopySource: `${BUCKET}/kept` }));
    expect((await read("new")).equals(Buffer.alloc(MB, 3))).toBe(true);
    expect((await read("in-parts")).equals(Buffer.alloc(5 * MB, 2))).toBe(true);
    expect((await read("copy")).equals(original)).toBe(true);
  });
});
