import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { refusalOfSignature, type ReceivedRequest } from "./signed-requests";

export interface EmbeddedS3 {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  stop(): Promise<void>;
}

/** s3rver's one account, whose key pairs its signature check looks up (a registry shared by every s3rver of the process). */
interface S3rverAccount {
  createKeyPair(accessKeyId: string, secretAccessKey: string): void;
  revokeAccessKey(accessKeyId: string): void;
}
/** The pair s3rver ships with: known to anyone, so never accepted. */
const BUILT_IN_ACCESS_KEY = "S3RVER";

/** Koa's context, as much of it as the check below uses. */
interface RequestContext {
  req: ReceivedRequest;
  status: number;
  type: string;
  body: unknown;
}
type Middleware = (ctx: RequestContext, next: () => Promise<void>) => Promise<void>;

/**
 * s3rver serves a request that carries no signature as if it were allowed, and takes any
 * Signature Version 4 for valid without computing it: any local process, or a web page's form
 * posted to the loopback port, could read the backups or replace objects. Only requests signed
 * with this store's pair go on.
 */
const requireSignature =
  (credentials: { accessKeyId: string; secretAccessKey: string }): Middleware =>
  async (ctx, next) => {
    const refusal = await refusalOfSignature(ctx.req, credentials);
    if (!refusal) return next();
    ctx.status = 403;
    ctx.type = "application/xml";
    ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${refusal.code}</Code><Message>${refusal.message}</Message></Error>`;
  };

/** A disk with no room left, or a user's quota used up. */
const NO_ROOM = new Set(["ENOSPC", "EDQUOT"]);

/**
 * A write the disk had no room for is answered 507 InsufficientStorage (as MinIO answers a full
 * drive), not s3rver's 500 InternalError: the client can tell a full store from a broken one.
 * The patched store (patches/s3rver@3.7.1.patch) has removed what it wrote and read the rest of
 * the request's body by then, so the answer reaches the client.
 */
const answerNoRoom: Middleware = async (ctx, next) => {
  try {
    await next();
  } catch (error) {
    if (!NO_ROOM.has((error as NodeJS.ErrnoException).code ?? "")) throw error;
    ctx.status = 507;
    ctx.type = "application/xml";
    ctx.body =
      '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InsufficientStorage</Code>' +
      "<Message>The store has no room left for this write; nothing of it was kept</Message></Error>";
  }
};

/** Where a process with DATA_DIR `dataDir` and no S3_ENDPOINT keeps the embedded store's files: shared by its server and worker. */
export const embeddedStoreDirectory = (dataDir: string) => path.join(dataDir, "objects");

/**
 * An S3-protocol server on 127.0.0.1 keeping objects as files under `directory`. Each process
 * runs its own on a free port over the same directory, so server and worker see one store. It
 * answers requests signed with a key pair made for this start (or the one given) only: the
 * process that started it is the only one that knows it, unless it passes it on.
 */
export async function startEmbeddedS3(options: {
  directory: string;
  port?: number;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}): Promise<EmbeddedS3> {
  await fs.mkdir(options.directory, { recursive: true });
  // Loaded only when the store is embedded: it is heavy and production uses real S3.
  const { default: S3rver } = await import("s3rver");
  const account = (createRequire(import.meta.url)("s3rver/lib/models/account") as { DUMMY_ACCOUNT: S3rverAccount }).DUMMY_ACCOUNT;
  account.revokeAccessKey(BUILT_IN_ACCESS_KEY);
  const credentials = options.credentials ?? {
    accessKeyId: `MERIDIAN${randomBytes(6).toString("hex").toUpperCase()}`,
    secretAccessKey: randomBytes(30).toString("base64url"),
  };
  if (credentials.accessKeyId === BUILT_IN_ACCESS_KEY) throw new Error("the embedded S3 store does not accept s3rver's built-in key pair");
  account.createKeyPair(credentials.accessKeyId, credentials.secretAccessKey);
  const server = new S3rver({
    address: "127.0.0.1",
    port: options.port ?? 0,
    directory: path.resolve(options.directory),
    silent: true,
  });
  // First of all the middleware: s3rver's own would serve the request before any added after them.
  (server as unknown as { middleware: Middleware[] }).middleware.unshift(requireSignature(credentials), answerNoRoom);
  const address = (await server.run()) as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    ...credentials,
    // The pair stays registered: a store started again with it (a restart in a test) shares the process's registry.
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
