import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createLogger } from "@meridian/config";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "@meridian/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/free-port";
import { createAccount, type Account } from "../support/auth-suite";
import { startServerWithAdmin } from "../support/json-api";
import type { TestServer } from "../support/test-server";

/**
 * PostgreSQL stopped, then started again, under a running server, on a PostgreSQL of this file's
 * own (the run's shared one serves every other file). While it is down, requests are refused 503
 * with Retry-After instead of each waiting on connections that cannot be made; once it is back,
 * the next request is served, not held behind a reconnect backoff. The figures are printed, not asserted.
 */
const ADMIN = { email: "postgres-outage-admin@example.com", password: "postgres outage admin password" };
const logger = createLogger({ level: "silent", name: "postgres-outage-test" });
/** Requests sent together while PostgreSQL is down. */
const DURING_OUTAGE = 8;
let folder: string;
let pgOptions: Parameters<typeof startEmbeddedPostgres>[0];
let database: EmbeddedPostgres;
let server: TestServer;
let account: Account;

beforeAll(async () => {
  folder = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-pg-outage-"));
  await fs.chmod(folder, 0o755);
  pgOptions = { dataDir: path.join(folder, "data"), port: await freePort(), logger, systemDir: path.join(folder, "system") };
  database = await startEmbeddedPostgres(pgOptions);
  // A deadline shorter than the reconnect backoff a pool builds up over an outage (postgres.js: up to 20 s).
  ({ server } = await startServerWithAdmin(ADMIN, { DATABASE_URL: database.url, REQUEST_TIMEOUT_MS: "10000" }));
  account = await createAccount(server);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await database?.stop();
  await fs.rm(folder, { recursive: true, force: true });
}, 120_000);

/** A write: never served from a cache, so it needs PostgreSQL. */
const rename = (name: string) => server.request("/api/v1/user/profile", { method: "PUT", token: account.token, json: { name } });

const timed = async <T>(work: () => Promise<T>) => {
  const started = performance.now();
  const result = await work();
  return { result, ms: Math.round(performance.now() - started) };
};

describe("PostgreSQL stopped and started again under a running server", () => {
  it("refuses requests 503 with Retry-After while it is down, and serves the first request after it is back", { timeout: 240_000 }, async () => {
    expect((await rename("Before")).status).toBe(200);
    await database.stop();

    // The first requests find out; every one of them is answered while PostgreSQL is still down.
    const first = await timed(() => rename("During"));
    const outage = await timed(() => Promise.all(Array.from({ length: DURING_OUTAGE }, (_, index) => timed(() => rename(`During ${index}`)))));
    const refusals = await Promise.all(
      [first.result, ...outage.result.map(({ result }) => result)].map(async (response) => ({
        status: response.status,
        retryAfter: response.headers.get("retry-after") !== null,
        code: ((await response.json()) as { code?: string }).code,
      })),
    );
    expect(refusals).toEqual(Array.from({ length: DURING_OUTAGE + 1 }, () => ({ status: 503, retryAfter: true, code: "SERVICE_UNAVAILABLE" })));

    const restart = await timed(async () => (database = await startEmbeddedPostgres(pgOptions)));
    // Sent as soon as PostgreSQL accepts connections: served, within the request deadline.
    const after = await timed(() => rename("After"));
    expect(after.result.status).toBe(200);
    console.info(
      `first request in the outage: ${first.ms} ms; ${DURING_OUTAGE} together: ${Math.max(...outage.result.map(({ ms }) => ms))} ms at most; ` +
        `PostgreSQL start: ${restart.ms} ms; first request after: ${after.ms} ms`,
    );
  });
});
