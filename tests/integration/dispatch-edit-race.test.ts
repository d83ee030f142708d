import { dispatchObservatory } from "@meridian/domain/observations";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { observingNetwork } from "../support/observing-network";
import { openPluginSocket, type PluginSocket } from "../support/plugin-socket";
import { holdTable, lockWaiters } from "../support/table-hold";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

/**
 * An observation is never assigned before its fixedTimeStart. Dispatch reads its plan before it
 * locks the observation it chose: an edit that moves the window into the future and commits while
 * that dispatch waits for the observation's row must be judged again, not assigned on the old plan.
 * The server runs without its worker, so the only dispatch is the one this test runs (the function
 * the worker's dispatch job runs).
 */
const ADMIN = { email: "dispatch-edit-race-admin@example.com", password: "dispatch edit race admin password" };
let server: TestServer;
const sockets: PluginSocket[] = [];
beforeAll(async () => {
  ({ server } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "server" }));
});
afterAll(async () => {
  for (const socket of sockets) await socket.client.close().catch(() => undefined);
  await server?.stop();
});
const { must, call } = jsonApi(() => server);
const waitingOnLocks = () => lockWaiters(server.server.runtime.deps.sql);

const deneb = { name: "Deneb", ra: 310.36, dec: 45.28, exposures: [{ filter: "L", exposureSeconds: 1, count: 1, binning: 1 }] };

describe("an observation edited while it is being assigned", () => {
  it("is not assigned before the fixedTimeStart its committed edit gave it", async () => {
    const owner = await createAccount(server);
    const { observatory, project, key } = await observingNetwork(must, owner);
    const observation = await must(
      "/observations",
      { method: "POST", token: owner.token, json: { name: "Movable", projectId: project.id, observatoryId: observatory.id, targets: [deneb] } },
      201,
    );
    const plugin = await openPluginSocket(server.url, key.key);
    sockets.push(plugin);
    expect(await plugin.ask({ type: "hello", pluginVersion: "4.0.0.0" })).toMatchObject({ type: "ack" });
    expect((await must(`/observations/${observation.id}`, { token: owner.token }, 200)).status).toBe("pending");

    const start = new Date(Date.now() + 2 * 24 * 3600_000);
    const end = new Date(start.getTime() + 3600_000);
    // The edit takes the observation's row, then waits (at its permission read) while the dispatch plans and queues for that row.
    const hold = await holdTable(server.databaseUrl, "organization_members");
    let edited: { status: number; body: { fixedTimeStart?: string } };
    let dispatched: Awaited<ReturnType<typeof dispatchObservatory>>;
    try {
      const edit = call(`/observations/${observation.id}`, {
        method: "PUT",
        token: owner.token,
        json: { type: "fixed_time", fixedTimeStart: start.toISOString(), fixedTimeEnd: end.toISOString() },
      });
      await until("the edit to wait while holding the observation", async () => (await hold.waiters()) >= 1, { intervalMs: 5 });
      const dispatch = dispatchObservatory({ deps: server.server.runtime.deps, observatoryId: observatory.id });
      await until("the dispatch to wait for the observation's row", async () => (await waitingOnLocks()) >= 2, { intervalMs: 5 });
      await hold.release();
      [edited, dispatched] = await Promise.all([edit, dispatch]);
    } finally {
      await hold.release();
    }

    expect(edited.status).toBe(200);
    const now = await must(`/observations/${observation.id}`, { token: owner.token }, 200);
    expect(new Date(now.fixedTimeStart).getTime()).toBe(start.getTime());
    // Its window opens in two days: it must still be waiting, not assigned now.
    expect({ status: now.status, dispatched: dispatched?.id ?? null }).toEqual({ status: "pending", dispatched: null });
  });
});
