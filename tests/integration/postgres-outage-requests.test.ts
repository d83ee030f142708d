import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { startServerWithAdmin } from "../support/json-api";
import { startOwnPostgres, type OwnPostgres } from "../support/own-postgres";
import type { TestServer } from "../support/test-server";

/**
 * PostgreSQL stopped, then started again, under a running server, on a PostgreSQL of this file's
 * own (the run's shared one serves every other file). While it is down, requests are refused 503
 * with Retry-After instead of each waiting on connections that cannot be made; once it is back,
 * the next request is served, not held behind a reconnect backoff. The figures are printed, not asserted.
 */
const ADMIN = { email: "postgres-outage-admin@example.com", password: "postgres outage admin password" };
/** Requests sent together while PostgreSQL is down, more than the server's pool has connections (10), in rounds. */
const DURING_OUTAGE = 12;
const ROUNDS = 4;
let database: OwnPostgres;
let server: TestServer;
let account: Account;

beforeAll(async () => {
  database = await startOwnPostgres("postgres-outage-test");
  // A deadline shorter than the reconnect backoff a pool builds up over an outage (postgres.js: up to 20 s).
  ({ server } = await startServerWithAdmin(ADMIN, { DATABASE_URL: database.url, REQUEST_TIMEOUT_MS: "10000" }));
  account = await createAccount(server);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await database?.remove();
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
    const outage: Array<{ result: Response; ms: number }> = [];
    for (let round = 0; round < ROUNDS; round += 1)
      outage.push(...(await Promise.all(Array.from({ length: DURING_OUTAGE }, (_, index) => timed(() => rename(`During ${round}.${index}`))))));
    const refusals = await Promise.all(
      [first.result, ...outage.map(({ result }) => result)].map(async (response) => ({
        status: response.status,
        retryAfter: response.headers.get("retry-after") !== null,
        ...(await response.json().then(({ code, detail }: { code?: string; detail?: string }) => ({
          code,
          // Refused for the database, not held until REQUEST_TIMEOUT_MS gave up on it.
          byDeadline: /took longer than/.test(detail ?? ""),
        }))),
      })),
    );
    expect(refusals).toEqual(
      Array.from({ length: DURING_OUTAGE * ROUNDS + 1 }, () => ({ status: 503, retryAfter: true, code: "SERVICE_UNAVAILABLE", byDeadline: false })),
    );

    const restart = await timed(() => database.start());
    // Sent as soon as PostgreSQL accepts connections: served, within the request deadline.
    const after = await timed(() => rename("After"));
    expect(after.result.status).toBe(200);
    console.info(
      `first request in the outage: ${first.ms} ms; ${ROUNDS} rounds of ${DURING_OUTAGE}: ${Math.max(...outage.map(({ ms }) => ms))} ms at most; ` +
        `PostgreSQL start: ${restart.ms} ms; first request after: ${after.ms} ms`,
    );
  });
});
