import { setTimeout as wait } from "node:timers/promises";
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  PutObjectCommand,
  S3Client,
  type MultipartUpload,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { optionalCall, StorageCallUnsupported } from "@meridian/db";
import { DeliveryFailure } from "./http";
import { PROBE_NAME, type DeliveryLimits, type DeliveryTarget } from "./target";

const MULTIPART_ABOVE = 64 * 1024 ** 2;
const MIN_PART = 5 * 1024 ** 2;
/**
 * A failed attempt's further tries at aborting its multipart upload, after these waits: a
 * destination back within seconds keeps none of its parts. Longer outages leave it to the next
 * attempt at the file or the daily abort_stale_uploads job.
 */
const ABORT_RETRY_WAITS_MS = [1_000, 4_000];
/** A key Meridian writes below the destination's prefix: `<project>/<observation name> (<observation id>)/<filename>`. */
const MERIDIAN_KEY = /^[^/]+\/[^/]* \(obs_[0-9A-Za-z_-]+\)\/.+$/;

export interface S3Settings {
  endpoint?: string;
  region: string;
  bucket: string;
  prefix?: string;
  forcePathStyle?: boolean;
}

/** Where a provider's error is the caller's to read: its name and status, never the signed request. */
const described = (error: unknown) => {
  const { name, message, $metadata } = error as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  return `S3 answered ${$metadata?.httpStatusCode ?? "nothing"}: ${name ?? "Error"}${message && message !== name ? ` (${message.slice(0, 200)})` : ""}`;
};

/** An S3 bucket (any S3-protocol store): PutObject, multipart above 64 MiB, then a HEAD that checks the size. */
export function s3Target(options: { settings: S3Settings; secrets: Record<string, string>; limits: DeliveryLimits }): DeliveryTarget {
  const { settings, secrets, limits } = options;
  const client = new S3Client({
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    region: settings.region,
    forcePathStyle: settings.forcePathStyle ?? false,
    credentials: { accessKeyId: secrets.accessKeyId ?? "", secretAccessKey: secrets.secretAccessKey ?? "" },
    // Streamed bodies in aws-chunked framing are stored verbatim by some S3-compatible stores (toolchain.md).
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    maxAttempts: 1,
    // A destination that stops answering fails the attempt (or the daily clean-up's visit) instead of holding it forever.
    requestHandler: { connectionTimeout: 15_000, requestTimeout: 120_000 },
  });
  const root = settings.prefix?.replace(/^\/+|\/+$/g, "") ?? "";
  const keyOf = (parts: string[]) => [root, ...parts].filter(Boolean).join("/");
  const guarded = async <T>(work: () => Promise<T>) => {
    try {
      return await work();
    } catch (error) {
      throw error instanceof DeliveryFailure || error instanceof StorageCallUnsupported ? error : new DeliveryFailure(described(error));
    }
  };
  async function* uploadsUnder(prefix: string): AsyncGenerator<MultipartUpload> {
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    for (;;) {
      const page = await optionalCall("ListMultipartUploads", () =>
        client.send(new ListMultipartUploadsCommand({ Bucket: settings.bucket, Prefix: prefix, KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker })),
      );
      yield* page.Uploads ?? [];
      if (!page.IsTruncated) return;
      keyMarker = page.NextKeyMarker;
      uploadIdMarker = page.NextUploadIdMarker;
    }
  }
  const abort = async (key: string, uploadId: string) => {
    try {
      await client.send(new AbortMultipartUploadCommand({ Bucket: settings.bucket, Key: key, UploadId: uploadId }));
    } catch (error) {
      const { name, $metadata } = error as { name?: string; $metadata?: { httpStatusCode?: number } };
      // Gone already (aborted or completed): what the abort was for.
      if (name !== "NoSuchUpload" && $metadata?.httpStatusCode !== 404) throw error;
    }
  };
  /** Aborts this attempt's own upload, trying again while the destination is briefly away; what stays is the next attempt's or the daily job's. */
  const abortOwn = async (key: string, uploadId: string) => {
    for (const waitMs of [0, ...ABORT_RETRY_WAITS_MS]) {
      if (waitMs > 0) await wait(waitMs);
      try {
        return await abort(key, uploadId);
      } catch {
        // The destination is down or refused: try again after the wait.
      }
    }
  };
  /**
   * Aborts the uploads earlier attempts at this file left at its key (a killed attempt aborts
   * nothing). Only one attempt at a file and destination runs at a time, so none is this one's.
   */
  const abortEarlier = async (key: string) => {
    try {
      for await (const upload of uploadsUnder(key)) if (upload.Key === key && upload.UploadId) await abort(key, upload.UploadId);
    } catch {
      // A destination that cannot list them (or is down, when the upload below fails too) leaves them to the daily job.
    }
  };
  return {
    async write(file) {
      const key = keyOf([...file.folders, file.filename]);
      await guarded(async () => {
        if (file.size <= (limits.largeBytes ?? MULTIPART_ABOVE)) {
          await client.send(
            new PutObjectCommand({ Bucket: settings.bucket, Key: key, Body: file.body, ContentLength: file.size, ContentType: file.contentType }),
          );
        } else {
          await abortEarlier(key);
          const upload = new Upload({
            client,
            params: { Bucket: settings.bucket, Key: key, Body: file.body, ContentType: file.contentType },
            partSize: Math.max(MIN_PART, limits.chunkBytes),
            queueSize: 4,
            // lib-storage's own abort is tried once, and its failure replaces the upload's error: abortOwn tries again and keeps it.
            leavePartsOnError: true,
          });
          try {
            await upload.done();
          } catch (error) {
            if (upload.uploadId) await abortOwn(key, upload.uploadId);
            throw error;
          }
        }
        const head = await client.send(new HeadObjectCommand({ Bucket: settings.bucket, Key: key }));
        if (head.ContentLength !== file.size) throw new DeliveryFailure(`S3 holds ${head.ContentLength} bytes at ${key}, not ${file.size}`);
      });
      return `s3://${settings.bucket}/${key}`;
    },
    async abortLeftUploads({ startedBefore }) {
      const under = root ? `${root}/` : "";
      return guarded(async () => {
        let aborted = 0;
        for await (const upload of uploadsUnder(under)) {
          const { Key: key, UploadId: uploadId, Initiated: initiated } = upload;
          // Only Meridian's own keys; an upload that does not say when it began gives no reason to think it abandoned.
          if (!key || !uploadId || !MERIDIAN_KEY.test(key.slice(under.length)) || !initiated || initiated.getTime() >= startedBefore.getTime()) continue;
          await abort(key, uploadId);
          aborted += 1;
        }
        return aborted;
      });
    },
    async probe() {
      const key = keyOf([PROBE_NAME]);
      await guarded(async () => {
        await client.send(new PutObjectCommand({ Bucket: settings.bucket, Key: key, Body: "Meridian checks it may write here.", ContentType: "text/plain" }));
        await client.send(new DeleteObjectCommand({ Bucket: settings.bucket, Key: key }));
      });
    },
  };
}
