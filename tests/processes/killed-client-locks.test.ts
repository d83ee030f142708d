import { spawn } from "node:child_process";
import { randomInt } from "node:crypto";
import path from "node:path";
import { CLIENT_CONNECTION_CHECK_INTERVAL } from "@meridian/db";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/test-server";
import { until } from "../support/until";

/*
 * A process killed while one of its statements waits on a lock: PostgreSQL would notice only when
 * the wait ended and it wrote to the dead client, so the backend kept every lock its transaction
 * held meanwhile (a new worker's recovery of the dead one's jobs waited behind it). Meridian's role
 * sets client_connection_check_interval (at migration), so such a backend ends within seconds.
 */

const APPLICATION = "meridian-killed-client";
let server: TestServer;
let probe: postgres.Sql;
beforeAll(async () => {
  server = await startTestServer({ MERIDIAN_ROLE: "server" });
  probe = postgres(server.databaseUrl, { max: 1, onnotice: () => undefined });
});
afterAll(async () => {
  await probe?.end();
  await server?.stop();
});

/** A process whose transaction takes advisory lock `taken`, then waits for `held`. */
function clientWaitingFor(options: { taken: number; held: number }) {
  const script = `
    import postgres from "postgres";
    const sql = postgres(process.env.DATABASE_URL, { max: 1, onnotice: () => undefined, connection: { application_name: "${APPLICATION}" } });
    await sql.begin(async (tx) => {
      await tx\`select pg_advisory_xact_lock(${options.taken})\`;
      await tx\`select pg_advisory_xact_lock(${options.held})\`;
    });`;
  // Run from packages/db, whose dependencies hold postgres.js.
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    cwd: path.resolve(import.meta.dirname, "../../packages/db"),
    env: { PATH: process.env.PATH, DATABASE_URL: server.databaseUrl },
    stdio: "ignore",
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return { child, exited };
}

const killedClientBackends = async () =>
  (await probe<Array<{ count: number }>>`select count(*)::int as count from pg_stat_activity where application_name = ${APPLICATION}`)[0]!.count;

describe("a process killed while its statement waits on a lock", () => {
  it("is the role's default: every new session of Meridian's role checks its client", async () => {
    const [row] = await probe<Array<{ interval: string }>>`select current_setting('client_connection_check_interval') as interval`;
    expect(row!.interval).toBe(CLIENT_CONNECTION_CHECK_INTERVAL);
  });

  it("leaves no backend and no lock behind once its client is found gone, while what it waited for is still held", async () => {
    const held = randomInt(1, 1_000_000_000);
    const taken = held + 1;
    const holder = postgres(server.databaseUrl, { max: 1, onnotice: () => undefined });
    try {
      await holder`begin`;
      await holder`select pg_advisory_xact_lock(${held})`;
      const client = clientWaitingFor({ taken, held });
      await until("the client's statement to wait on the held lock", async () => {
        const [row] = await probe<Array<{ count: number }>>`
          select count(*)::int as count from pg_stat_activity where application_name = ${APPLICATION} and wait_event_type = 'Lock'`;
        return row!.count === 1;
      });
      client.child.kill("SIGKILL");
      await client.exited;

      await until("the killed client's backend to end", async () => (await killedClientBackends()) === 0, { timeoutMs: 60_000 });
      // What its transaction took is free again, and what it waited for is still held.
      const [free] = await probe<Array<{ taken: boolean }>>`select pg_try_advisory_lock(${taken}) as taken`;
      expect(free!.taken).toBe(true);
      await probe`select pg_advisory_unlock(${taken})`;
      const [stillHeld] = await probe<Array<{ taken: boolean }>>`select pg_try_advisory_lock(${held}) as taken`;
      expect(stillHeld!.taken).toBe(false);
    } finally {
      await holder`rollback`.catch(() => undefined);
      await holder.end();
    }
  });
});
