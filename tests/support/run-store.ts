import { inject } from "vitest";

/**
 * The environment that puts a server, a worker or a tool on the run's S3-protocol store (started by
 * the global setup) in `bucket`: its address and the key pair it was started with, which it
 * requires of every request.
 */
export function runStoreEnv(bucket: string) {
  const { accessKeyId, secretAccessKey } = inject("s3Credentials");
  return {
    S3_ENDPOINT: inject("s3Endpoint"),
    S3_BUCKET: bucket,
    S3_ACCESS_KEY_ID: accessKeyId,
    S3_SECRET_ACCESS_KEY: secretAccessKey,
    S3_FORCE_PATH_STYLE: "true",
  };
}
