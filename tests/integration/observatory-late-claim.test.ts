import { readPresence } from "@meridian/domain/observatories";
import { ObservatorySimulator } from "@meridian/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi } from "../support/json-api";
import { observatoryWithKey } from "../support/observatory-keys";
import { openWebSocketCount, startTestServer, type TestServer } from "../support/test-server";
import { until } from "../support/until";
import { connectWebSocket } from "../support/ws-client";

/**
 * A connection's claim on its observatory can reach the database after its socket closed (its
 * process busy, its pool short), and after a newer connection of the plugin claimed. That late
 * claim must not take the observatory from the newer connection: the newer one would be closed
 * with 4409 (after which a plugin never comes back), and the closed one would then take the
 * observatory offline with nobody left connected.
 */

let server: TestServer;
let owner: Account;
const { must } = jsonApi(() => server);
const sql = () => server.server.runtime.deps.sql;

beforeAll(async () => {
  server = await startTestServer({ MERIDIAN_ROLE: "server" });
  owner = await createAccount(server);
});
afterAll(() => server?.stop());

const liveConnection = async (observatoryId: string) => (await readPresence({ db: server.server.runtime.deps.db, observatoryId }))?.connectionId;

const claimsWaitingOnALock = async () =>
  (
    await sql()<Array<{ waiting: number }>>`
      select count(*)::int as waiting from pg_stat_activity
       where datname = current_database() and wait_event_type = 'Lock' and query ilike '%insert into "observatory_connections"%'`
  )[0]!.waiting;

describe("a connection's claim that lands after it closed", () => {
  it("leaves the observatory to the newer live connection, which stays open and online", async () => {
    const { observatoryId, key } = await observatoryWithKey(must, owner);
    const simulator = new ObservatorySimulator({ url: server.url, key, reconnect: false });
    const closes: number[] = [];
    simulator.on("close", (code: number) => closes.push(code));
    let release!: () => void;
    let holding: Promise<unknown> | undefined;
    try {
      await simulator.connect();
      const live = await liveConnection(observatoryId);
      expect(live).toBeDefined();

      // The row's lock held, so the next connection's claim waits as a busy process's would.
      const locked = new Promise<void>((resolveLocked) => {
        holding = sql().begin(async (tx) => {
          await tx`select 1 from observatory_connections where observatory_id = ${observatoryId} for update`;
          resolveLocked();
          await new Promise<void>((resolveRelease) => (release = resolveRelease));
        });
      });
      await locked;
      const late = await connectWebSocket(`${server.url.replace(/^http/, "ws")}/ws/observatory`, { authorization: `Bearer ${key}` });
      if (!late.ok) throw new Error(`upgrade refused: ${late.status} ${late.body}`);
      await until("the second connection's claim to wait on the lock", async () => (await claimsWaitingOnALock()) === 1);
      await late.client.close();
      release();
      await holding;
      // Its claim done (and withdrawn) and its close handled: only the simulator's socket is left.
      await until("the closed connection to be gone from the server", async () => (await openWebSocketCount(server)) === 1);

      expect(await liveConnection(observatoryId)).toBe(live);
      expect(await simulator.send({ type: "heartbeat" })).toMatchObject({ type: "ack" });
      const observatory = (await must(`/observatories/${observatoryId}`, { token: owner.token }, 200)) as { connection: { online: boolean } };
      expect(observatory.connection.online).toBe(true);
      expect(closes).toEqual([]);
    } finally {
      release?.();
      await holding?.catch(() => undefined);
      await simulator.close();
    }
  });
});
