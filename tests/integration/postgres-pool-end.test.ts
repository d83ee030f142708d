import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../support/test-database";
import { until } from "../support/until";

let url: string;
let superuser: postgres.Sql;
beforeAll(async () => {
  url = (await createTestDatabase()).url;
  superuser = postgres(url, { max: 1, onnotice: () => undefined });
});
afterAll(() => superuser?.end());

/**
 * A process stops by ending its pools. Unpatched postgres.js 3.4.9 kept, on a connection whose
 * backend died under a query, the query it had rejected as the one it was running: the pool's end()
 * then waited for that query's answer, which could not come, until its timeout (5 s per pool in
 * every stop after a database outage; connection-budget's stops took 5 s each).
 * The same after a query was given to a connection with no socket left, and for an end() asked for
 * while a socket was closing, which waited for good. patches/postgres@3.4.9.patch forgets the query
 * in both cases and lets the close settle the end. The test's own timeout is the bound.
 */
describe("ending a pool (patched postgres.js)", () => {
  it("ends at once after a connection's backend was terminated under a query", { timeout: 20_000 }, async () => {
    const pool = postgres(url, { max: 2, onnotice: () => undefined, connection: { application_name: "pool-end-test" } });
    const running = pool`select pg_sleep(60)`.then(
      () => "answered",
      (error: Error) => error.message,
    );
    await until("the query to run", async () => {
      const [row] = await superuser<Array<{ count: number }>>`
        select count(*)::int as count from pg_stat_activity where application_name = 'pool-end-test' and query like 'select pg_sleep%'`;
      return row!.count === 1;
    });
    await superuser`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'pool-end-test'`;
    expect(await running).not.toBe("answered");
    // No timeout given: without the patch this waits for good.
    await pool.end();
  });

  it("ends at once after a query on a reserved connection whose backend had gone was refused", { timeout: 20_000 }, async () => {
    const pool = postgres(url, { max: 2, onnotice: () => undefined, connection: { application_name: "pool-end-reserved" } });
    const reserved = await pool.reserve();
    await reserved`select 1`;
    await superuser`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'pool-end-reserved'`;
    // Refused one of two ways, by how far the socket's close has come: no socket left to write to
    // (CONNECTION_CLOSED), or written and reset (ECONNRESET) with the close still to come, after end() began.
    await until("a query on the reserved connection to be refused", () =>
      reserved`select 1`.then(
        () => false,
        () => true,
      ),
    );
    reserved.release();
    await pool.end();
  });
});
