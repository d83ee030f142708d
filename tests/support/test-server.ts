import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createLogger, loadEnv, type Env } from "@meridian/config";
import { startServer, type RunningServer } from "@meridian/server";
import { createTestDatabase } from "./test-database";
import { runStoreEnv } from "./run-store";

export interface TestServer {
  url: string;
  server: RunningServer;
  env: Env;
  databaseUrl: string;
  dataDir: string;
  /** fetch against the server; JSON bodies are encoded and the content type set. */
  request(pathname: string, init?: RequestInit & { json?: unknown; token?: string }): Promise<Response>;
  stop(): Promise<void>;
}

/**
 * Every test signs in from 127.0.0.1, scripted and fast: the per-minute limits on password attempts
 * (sign-ins, password changes, reset confirmations) stand aside; the tests of those limits set their own.
 */
const roomyPasswordAttempts = { LOGIN_ATTEMPTS_PER_IP_PER_MINUTE: "100000", LOGIN_ATTEMPTS_PER_ACCOUNT_PER_MINUTE: "100000" } as const;

/**
 * A test process's environment: a database cloned for this test file, a bucket of its own on the run's
 * S3-protocol server, and a data folder; `overrides` add to or replace the variables.
 * The test server and the test runtime without HTTP (test-runtime.ts) both start from it.
 */
export async function prepareTestEnv(overrides: Record<string, string> = {}): Promise<{ env: Env; databaseUrl: string; dataDir: string }> {
  const database = await createTestDatabase();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-server-"));
  const env = loadEnv({
    NODE_ENV: "test",
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    ...runStoreEnv(`test-${randomBytes(4).toString("hex")}`),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    SECRETS_KEY: "test secrets key shared by every process of this run",
    WEB_DIST_DIR: path.join(dataDir, "no-web"),
    // Every REST response is checked against its operation's declared output: a mismatch is a 500 that fails the test.
    VALIDATE_RESPONSES: "true",
    ...roomyPasswordAttempts,
    // argon2id at its smallest cost: thousands of signups and sign-ins a run (passwords.test.ts holds the real cost).
    PASSWORD_HASHING: "fast-for-tests",
    // A test's own keep-alive connections would hold every stop for the grace (1.5 s, about 250 stops a run);
    // server-drain.test.ts checks the grace on processes of its own.
    SHUTDOWN_IDLE_GRACE_MS: "0",
    // The test's client shares this process's event loop: after a long synchronous step (a parse, a
    // build) both sides' keep-alive timers are overdue, the client sends on its idle connection first
    // and the server then closes it under the request (ECONNRESET, CI run 85). A minute outlasts any such step.
    HTTP_KEEP_ALIVE_TIMEOUT_MS: "60000",
    ...overrides,
  });
  return { env, databaseUrl: database.url, dataDir };
}

/**
 * A real Meridian server (HTTP, WebSocket and, unless role is `server`, the worker) on a free
 * port, over a database cloned for this test file and the run's S3-protocol server.
 */
export async function startTestServer(overrides: Record<string, string> = {}): Promise<TestServer> {
  const { env, databaseUrl, dataDir } = await prepareTestEnv(overrides);
  const logger = createLogger({ level: env.LOG_LEVEL, name: "test" });
  const server = await startServer({ env, logger });
  const url = server.url;
  return {
    url,
    server,
    env,
    databaseUrl,
    dataDir,
    request(pathname, init = {}) {
      const { json, token, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (json !== undefined) headers.set("content-type", "application/json");
      if (token) headers.set("authorization", `Bearer ${token}`);
      return fetch(`${url}${pathname}`, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
    },
    async stop() {
      await server.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

let counter = 0;
/** Signs up a fresh user through the public API and returns its token. */
/** The WebSocket connections, users' and plugins', that the server's /api/health counts as open. */
export async function openWebSocketCount(server: TestServer): Promise<number> {
  const health = (await (await server.request("/api/health")).json()) as { checks: { websocket: { connections: number } } };
  return health.checks.websocket.connections;
}

export async function signupUser(server: TestServer, overrides: { email?: string; password?: string; name?: string } = {}) {
  counter += 1;
  const body = {
    email: overrides.email ?? `user${counter}-${randomBytes(3).toString("hex")}@example.com`,
    password: overrides.password ?? "correct horse battery",
    name: overrides.name ?? `User ${counter}`,
  };
  const response = await server.request("/api/v1/auth/signup", { method: "POST", json: body });
  if (response.status !== 201) throw new Error(`signup failed: ${response.status} ${await response.text()}`);
  const result = (await response.json()) as { user: { id: string; email: string; name: string; roles: string[] }; token: string };
  return { ...result, password: body.password };
}

/** The environment that puts another process (a spawned server or worker) on this test server's database and object storage. */
export function sharedProcessEnv(server: TestServer, dataDir: string): Record<string, string> {
  const { env } = server;
  return {
    DATA_DIR: dataDir,
    DATABASE_URL: server.databaseUrl,
    S3_ENDPOINT: env.S3_ENDPOINT!,
    S3_BUCKET: env.S3_BUCKET,
    S3_ACCESS_KEY_ID: env.S3_ACCESS_KEY_ID!,
    S3_SECRET_ACCESS_KEY: env.S3_SECRET_ACCESS_KEY!,
    S3_FORCE_PATH_STYLE: "true",
    SECRETS_KEY: env.SECRETS_KEY!,
    VALIDATE_RESPONSES: "true",
    // The counts are in the shared database: another process holds them to this server's limits.
    LOGIN_ATTEMPTS_PER_IP_PER_MINUTE: String(env.LOGIN_ATTEMPTS_PER_IP_PER_MINUTE),
    LOGIN_ATTEMPTS_PER_ACCOUNT_PER_MINUTE: String(env.LOGIN_ATTEMPTS_PER_ACCOUNT_PER_MINUTE),
  };
}
