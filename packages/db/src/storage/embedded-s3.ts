import fs from "node:fs/promises";
import type { AddressInfo } from "node:net";
import path from "node:path";

export interface EmbeddedS3 {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  stop(): Promise<void>;
}

/**
 * An S3-protocol server on 127.0.0.1 keeping objects as files under `directory`. Each process
 * runs its own on a free port over the same directory, so server and worker see one store.
 */
export async function startEmbeddedS3(options: { directory: string; port?: number }): Promise<EmbeddedS3> {
  await fs.mkdir(options.directory, { recursive: true });
  // Loaded only when the store is embedded: it is heavy and production uses real S3.
  const { default: S3rver } = await import("s3rver");
  const server = new S3rver({
    address: "127.0.0.1",
    port: options.port ?? 0,
    directory: path.resolve(options.directory),
    silent: true,
  });
  const address = (await server.run()) as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    // s3rver's built-in account.
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
