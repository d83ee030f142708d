import { createLogger } from "@meridian/config";
import { startRuntime } from "@meridian/domain/platform";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createAccount, loginSession, type Account } from "../support/auth-suite";
import { serverWithLimits } from "../support/server-with-limits";
import { holdTable, type TableHold } from "../support/table-hold";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

/*
 * Every request is bounded in time, also one whose query waits behind a lock that is never
 * released: the request's deadline (REQUEST_TIMEOUT_MS) answers 503 and cancels the query, and the
 * request pool's statement_timeout (REQUEST_STATEMENT_TIMEOUT_MS) stops a single statement.
 */

/** A failure bound, not a measurement: without a deadline the request would wait for ever. */
const GIVE_UP_MS = 20_000;

async function expectServiceUnavailable(response: Response) {
  expect(response.status).toBe(503);
  expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(await response.json()).toMatchObject({ status: 503, code: "SERVICE_UNAVAILABLE" });
}

describe("a request past REQUEST_TIMEOUT_MS", () => {
  const POOL = 8;
  // The statement timeout is far off: the deadline is what ends these requests.
  const limited = serverWithLimits({ REQUEST_TIMEOUT_MS: "1000", REQUEST_STATEMENT_TIMEOUT_MS: "600000", DATABASE_POOL_SIZE: String(POOL) });
  let server: TestServer;
  let owner: Account;
  let hold: TableHold | undefined;
  beforeAll(async () => {
    server = limited.server;
    owner = await createAccount(server);
  });
  afterEach(() => hold?.release());

  it("is answered 503 SERVICE_UNAVAILABLE with Retry-After, and its query is cancelled, so the pool's connections come back", async () => {
    hold = await holdTable(server.databaseUrl, "observatories");
    // More requests than the pool has connections: some wait for a connection, the others behind the lock.
    const answers = await Promise.all(
      Array.from({ length: POOL + 1 }, () => server.request("/observatories", { token: owner.token, signal: AbortSignal.timeout(GIVE_UP_MS) })),
    );
    for (const answer of answers) await expectServiceUnavailable(answer);
    // Nothing waits at the lock any more, though it is still held: each query was cancelled on its backend.
    await until("the held requests' queries to be cancelled", async () => (await hold!.waiters()) === 0);
    // And their connections are back in the pool: a request that does not meet the lock is answered.
    const profile = await server.request("/api/v1/user/profile", { token: owner.token, signal: AbortSignal.timeout(GIVE_UP_MS) });
    expect(profile.status).toBe(200);
  });

  it("bounds the reads answered before Hono's pipeline (GET /api/v1/auth/me) too", async () => {
    // A session no request has used yet: its lookup is not cached, so it meets the lock.
    const { token } = await loginSession(server, owner);
    hold = await holdTable(server.databaseUrl, "users");
    await expectServiceUnavailable(await server.request("/api/v1/auth/me", { token, signal: AbortSignal.timeout(GIVE_UP_MS) }));
    await until("the read's query to be cancelled", async () => (await hold!.waiters()) === 0);
  });
});

describe("a request's statement past REQUEST_STATEMENT_TIMEOUT_MS", () => {
  const limited = serverWithLimits({ REQUEST_TIMEOUT_MS: "600000", REQUEST_STATEMENT_TIMEOUT_MS: "500" });
  let server: TestServer;
  let owner: Account;
  let hold: TableHold | undefined;
  beforeAll(async () => {
    server = limited.server;
    owner = await createAccount(server);
  });
  afterEach(() => hold?.release());

  it("is cancelled by PostgreSQL and answered 503 SERVICE_UNAVAILABLE with Retry-After", async () => {
    const [setting] = await server.server.runtime.deps.sql<Array<{ statement_timeout: string }>>`show statement_timeout`;
    expect(setting!.statement_timeout).toBe("500ms");
    hold = await holdTable(server.databaseUrl, "observatories");
    await expectServiceUnavailable(await server.request("/observatories", { token: owner.token, signal: AbortSignal.timeout(GIVE_UP_MS) }));
    expect(await hold.waiters()).toBe(0);
  });
});

describe("each kind of process's pool", () => {
  const limited = serverWithLimits({ REQUEST_STATEMENT_TIMEOUT_MS: "7000", JOB_STATEMENT_TIMEOUT_MS: "123000" });

  it("has its own statement_timeout: a server's for requests, a worker's and a serving worker's (all) for job bodies", async () => {
    const { server } = limited;
    const timeoutOf = async (sql: (typeof server.server.runtime.deps)["sql"]) =>
      (await sql<Array<{ statement_timeout: string }>>`show statement_timeout`)[0]!.statement_timeout;
    expect(await timeoutOf(server.server.runtime.deps.sql)).toBe("7s");
    for (const kind of ["worker", "all"] as const) {
      const runtime = await startRuntime({ env: server.env, logger: createLogger({ level: "silent" }), kind });
      try {
        expect(await timeoutOf(runtime.deps.sql)).toBe("123s");
      } finally {
        await runtime.stop();
      }
    }
  });
});
