import { DeleteObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { DeliveryFailure } from "./http";
import { PROBE_NAME, type DeliveryLimits, type DeliveryTarget } from "./target";

const MULTIPART_ABOVE = 64 * 1024 ** 2;
const MIN_PART = 5 * 1024 ** 2;

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
  });
  const keyOf = (parts: string[]) => [settings.prefix?.replace(/^\/+|\/+$/g, ""), ...parts].filter(Boolean).join("/");
  const guarded = async <T>(work: () => Promise<T>) => {
    try {
      return await work();
    } catch (error) {
      throw error instanceof DeliveryFailure ? error : new DeliveryFailure(described(error));
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
          // lib-storage aborts the multipart upload when a part fails, so no parts stay behind.
          const upload = new Upload({
            client,
            params: { Bucket: settings.bucket, Key: key, Body: file.body, ContentType: file.contentType },
            partSize: Math.max(MIN_PART, limits.chunkBytes),
            queueSize: 4,
          });
          await upload.done();
        }
        const head = await client.send(new HeadObjectCommand({ Bucket: settings.bucket, Key: key }));
        if (head.ContentLength !== file.size) throw new DeliveryFailure(`S3 holds ${head.ContentLength} bytes at ${key}, not ${file.size}`);
      });
      return `s3://${settings.bucket}/${key}`;
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
