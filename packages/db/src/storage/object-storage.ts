import { Readable } from "node:stream";
import {
  AbortMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  NoSuchKey,
  NotFound,
  S3Client,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";

export interface ObjectStorageConfig {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
}

export interface StoredObject {
  body: Readable;
  contentType: string | undefined;
  contentLength: number | undefined;
}

/** A multipart upload begun and neither completed nor aborted: its parts take space but make no object. */
export interface IncompleteUpload {
  key: string;
  uploadId: string;
  initiated: Date | null;
}

export interface ObjectStorage {
  readonly bucket: string;
  readonly endpoint: string;
  /** The key pair it signs with: for another process (a spawned worker, a tool) to reach the same store. */
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  ensureBucket(): Promise<void>;
  /**
   * Streams `body` to the store; bodies of unknown length go up as a multipart upload. When it
   * fails (the body's stream errors, a part or the completion is refused), the multipart upload
   * is aborted before the error is thrown, so its parts do not stay behind.
   */
  put(key: string, body: Readable | Buffer, options?: { contentType?: string }): Promise<void>;
  get(key: string): Promise<StoredObject | undefined>;
  head(key: string): Promise<{ contentLength: number | undefined } | undefined>;
  delete(key: string): Promise<void>;
  /**
   * Deletes up to 1,000 keys in one request (DeleteObjects); keys the store could not delete are
   * retried twice, then reported in the error.
   */
  deleteMany(keys: string[]): Promise<void>;
  /** Copies an object within the bucket, server side (nothing passes through this process). */
  copy(from: string, to: string): Promise<void>;
  /** Every object under `prefix` in key order, a page (up to 1,000 keys) at a time. */
  list(prefix: string): AsyncGenerator<Array<{ key: string; size: number; lastModified: Date | null }>>;
  /**
   * Multipart uploads under `prefix` neither completed nor aborted, by key, a page (up to 1,000) at a
   * time (ListMultipartUploads). Throws StorageCallUnsupported on a store that lacks the call.
   */
  listIncompleteUploads(prefix?: string): AsyncGenerator<IncompleteUpload[]>;
  /** The bytes an incomplete upload's parts hold (ListParts); undefined once it is gone; StorageCallUnsupported when the store lacks the call. */
  uploadedBytes(upload: Pick<IncompleteUpload, "key" | "uploadId">): Promise<number | undefined>;
  /** Aborts an incomplete upload, and its parts go (AbortMultipartUpload); one already gone is not an error. */
  abortUpload(upload: Pick<IncompleteUpload, "key" | "uploadId">): Promise<void>;
  /** Checks the bucket is reachable; `signal` abandons the request (and its socket) when aborted. */
  ping(options?: { signal?: AbortSignal }): Promise<void>;
  destroy(): void;
}

/**
 * The store answered 501 NotImplemented to a call beyond the core of the protocol (s3rver without
 * ListMultipartUploads, some gateways): a feature it lacks, not a failure, so a check that needs
 * the call can be left out while the rest goes on. `call` names the S3 operation refused.
 */
export class StorageCallUnsupported extends Error {
  constructor(readonly call: string) {
    super(`The storage does not support ${call} (it answered 501 NotImplemented)`);
    this.name = "StorageCallUnsupported";
  }
}

const isNotImplemented = (error: unknown) =>
  (error as { name?: string }).name === "NotImplemented" || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 501;

/** Sends a call a store may lack: its 501 NotImplemented becomes StorageCallUnsupported naming it. */
export async function optionalCall<T>(call: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (isNotImplemented(error)) throw new StorageCallUnsupported(call);
    throw error;
  }
}

/** Node's socket errors: the request found no store to talk to, or lost it before an answer. */
const UNREACHABLE = new Set(["ECONNREFUSED", "ECONNRESET", "ECONNABORTED", "ETIMEDOUT", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "EPIPE"]);

/**
 * The store could not be reached (refused, cut, timed out, not found): no S3 answer came. Its own
 * class, so that nothing mistakes it for the database's socket errors (the same Node codes).
 */
class StorageUnreachable extends Error {
  constructor(cause: Error) {
    super(cause.message, { cause });
    this.name = "StorageUnreachable";
  }
}

const isUnanswered = (error: unknown) => {
  const failure = error as { code?: unknown; name?: unknown; $metadata?: { httpStatusCode?: number } };
  if (failure?.$metadata?.httpStatusCode !== undefined) return false;
  return (typeof failure?.code === "string" && UNREACHABLE.has(failure.code)) || failure?.name === "TimeoutError";
};

/** True when the error, or one it was caused by, is this process's object store out of reach. */
export function isStorageUnreachable(error: unknown): boolean {
  for (let value = error, depth = 0; value && depth < 5; value = (value as { cause?: unknown }).cause, depth += 1)
    if (value instanceof StorageUnreachable) return true;
  return false;
}

const isMissing = (error: unknown) =>
  error instanceof NoSuchKey || error instanceof NotFound || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;
/**
 * True when the store refused a write for want of room: 507 Insufficient Storage (the embedded
 * store's InsufficientStorage, MinIO's XMinioStorageFull). Nothing of the write was kept.
 */
export const isStorageFull = (error: unknown) => (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode === 507;
const isNoSuchUpload = (error: unknown) => (error as { name?: string }).name === "NoSuchUpload" || isMissing(error);

export function createObjectStorage(config: ObjectStorageConfig): ObjectStorage {
  const credentials = { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey };
  const client = new S3Client({
    endpoint: config.endpoint,
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    credentials,
    // The SDK's default checksums frame streamed bodies in aws-chunked encoding, which some
    // S3-compatible stores save verbatim into the object: silent corruption. See toolchain.md.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
  const bucket = config.bucket;
  // Outermost, around the SDK's retries: every call's last failure to reach the store says so.
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        throw isUnanswered(error) ? new StorageUnreachable(error as Error) : error;
      }
    },
    { step: "initialize", priority: "high", name: "storageUnreachable" },
  );

  const storage: ObjectStorage = {
    bucket,
    endpoint: config.endpoint,
    credentials,
    async ensureBucket() {
      try {
        await client.send(new HeadBucketCommand({ Bucket: bucket }));
      } catch (error) {
        if (!isMissing(error)) throw error;
        try {
          await client.send(new CreateBucketCommand({ Bucket: bucket }));
        } catch (createError) {
          // Processes starting together (server + worker, two servers) race to create it: when
          // another one won, the bucket is there now and usable.
          const name = (createError as { name?: string }).name;
          if (name !== "BucketAlreadyOwnedByYou" && name !== "BucketAlreadyExists") throw createError;
          await client.send(new HeadBucketCommand({ Bucket: bucket }));
        }
      }
    },
    async put(key, body, options = {}) {
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key: key, Body: body, ContentType: options.contentType },
        queueSize: 2,
        partSize: 8 * 1024 * 1024,
        // lib-storage's own abort throws its failure in place of the upload's error; this one
        // keeps the upload's error. done() settles only after every part request has, so no
        // part lands after the abort.
        leavePartsOnError: true,
      });
      try {
        await upload.done();
      } catch (error) {
        if (upload.uploadId)
          // What a failed abort leaves (storage unreachable), the daily abort_stale_uploads job removes.
          await storage.abortUpload({ key, uploadId: upload.uploadId }).catch(() => undefined);
        throw error;
      }
    },
    async get(key) {
      try {
        const result = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return {
          body: result.Body as Readable,
          contentType: result.ContentType,
          contentLength: result.ContentLength,
        };
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    async head(key) {
      try {
        const result = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        return { contentLength: result.ContentLength };
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
    async deleteMany(keys) {
      if (keys.length > 1000) throw new Error("DeleteObjects takes at most 1,000 keys");
      let pending = keys;
      for (let attempt = 0; pending.length > 0; attempt += 1) {
        const result = await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: pending.map((Key) => ({ Key })), Quiet: true } }));
        const failed = (result.Errors ?? []).filter((error) => error.Code !== "NoSuchKey");
        if (failed.length === 0) return;
        if (attempt === 2) throw new Error(`could not delete ${failed.length} objects, such as ${failed[0]!.Key}: ${failed[0]!.Code} ${failed[0]!.Message}`);
        pending = failed.map((error) => error.Key!);
      }
    },
    async copy(from, to) {
      await client.send(new CopyObjectCommand({ Bucket: bucket, Key: to, CopySource: `${bucket}/${from.split("/").map(encodeURIComponent).join("/")}` }));
    },
    async *list(prefix) {
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token, MaxKeys: 1000 }));
        yield (page.Contents ?? []).map((object) => ({ key: object.Key!, size: object.Size ?? 0, lastModified: object.LastModified ?? null }));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },
    async *listIncompleteUploads(prefix = "") {
      let keyMarker: string | undefined;
      let uploadIdMarker: string | undefined;
      for (;;) {
        const page = await optionalCall("ListMultipartUploads", () =>
          client.send(
            new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: prefix, KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker, MaxUploads: 1000 }),
          ),
        );
        yield (page.Uploads ?? []).map((upload) => ({ key: upload.Key!, uploadId: upload.UploadId!, initiated: upload.Initiated ?? null }));
        if (!page.IsTruncated) return;
        keyMarker = page.NextKeyMarker;
        uploadIdMarker = page.NextUploadIdMarker;
      }
    },
    async uploadedBytes({ key, uploadId }) {
      let bytes = 0;
      let marker: string | undefined;
      try {
        for (;;) {
          const page = await optionalCall("ListParts", () =>
            client.send(new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumberMarker: marker })),
          );
          for (const part of page.Parts ?? []) bytes += part.Size ?? 0;
          if (!page.IsTruncated) return bytes;
          marker = page.NextPartNumberMarker;
        }
      } catch (error) {
        if (isNoSuchUpload(error)) return undefined;
        throw error;
      }
    },
    async abortUpload({ key, uploadId }) {
      try {
        await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }));
      } catch (error) {
        if (!isNoSuchUpload(error)) throw error;
      }
    },
    async ping(options = {}) {
      await client.send(new HeadBucketCommand({ Bucket: bucket }), { abortSignal: options.signal });
    },
    destroy() {
      client.destroy();
    },
  };
  return storage;
}
