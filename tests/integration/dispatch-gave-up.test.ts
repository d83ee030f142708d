import { dispatchObservatory } from "@meridian/domain/observations";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, roomyLimits } from "../support/auth-suite";
import { jsonApi } from "../support/json-api";
import { observingNetwork } from "../support/observing-network";
import { openPluginSocket, type PluginSocket } from "../support/plugin-socket";
import { holdTable, lockWaiters, type TableHold } from "../support/table-hold";
import { startTestServer, type TestServer } from "../support/test-server";
import { until } from "../support/until";

/**
 * Dispatch reads its plan before it locks the observation it chose, and plans again when that observation was edited
 * meanwhile; after three plans it gives up, and the edit that made it plan again has queued a dispatch of its own,
 * which assigns what the edits left. Here three edits, each holding its observation's row, are let through one after
 * another, each while the dispatch waits for that row: every plan finds its choice changed, and the dispatch gives up.
 *
 * The edits wait at their permission read, behind holds of `organization_members` queued in turn: a lock request
 * queues behind an earlier conflicting one, so edit A, hold 2, edit B, hold 3, edit C wait in that order behind
 * hold 1; releasing a hold lets one edit through, and the next hold then stops the next edit.
 *
 * The server runs without its worker: the dispatch that gives up is the one this test runs (the function the worker's
 * dispatch job runs), and the follow-up is run by a worker started afterwards, over the same database.
 */
let server: TestServer;
let worker: TestServer | undefined;
const sockets: PluginSocket[] = [];
beforeAll(async () => {
  server = await startTestServer({ ...roomyLimits, MERIDIAN_ROLE: "server" });
});
afterAll(async () => {
  for (const socket of sockets) await socket.client.close().catch(() => undefined);
  await worker?.stop();
  await server?.stop();
});
const { must, call } = jsonApi(() => server);
const db = () => server.server.runtime.deps.db;
const waitingOnLocks = () => lockWaiters(server.server.runtime.deps.sql);

/** Whether a backend waits for the transaction that holds this observation's row locked. */
async function waitsForRowOf(observationId: string): Promise<boolean> {
  const [row] = await db().execute<{ waiting: boolean }>(sql`
    select exists (
      select 1 from pg_locks l
       where not l.granted and l.locktype = 'transactionid'
         and l.transactionid = (select xmax from observations where id = ${observationId})) as waiting`);
  return Boolean(row?.waiting);
}

/** The observatory's dispatch jobs still waiting for a worker (a job that ran well is removed). */
async function dispatchJobs(observatoryId: string) {
  return db().execute<{ id: string }>(sql`
    select j.id::text from graphile_worker._private_jobs j
      join graphile_worker._private_tasks t on t.id = j.task_id
     where t.identifier = 'dispatch_observatory' and j.payload->>'observatoryId' = ${observatoryId}`);
}

const deneb = { name: "Deneb", ra: 310.36, dec: 45.28, exposures: [{ filter: "L", exposureSeconds: 1, count: 1, binning: 1 }] };

describe("a dispatch whose every plan is overtaken by an edit", () => {
  it("gives up after three plans, and the dispatch the edits queued assigns one observation, once", async () => {
    const owner = await createAccount(server);
    const { observatory, project, key } = await observingNetwork(must, owner);
    const submit = async (name: string, priority: number) =>
      (await must(
        "/observations",
        { method: "POST", token: owner.token, json: { name, priority, projectId: project.id, observatoryId: observatory.id, targets: [deneb] } },
        201,
      )) as { id: string };
    // Dispatch order: A, then B, then C. Each edit lowers its observation below the others, so each plan chooses the next.
    const a = await submit("A", 9);
    const b = await submit("B", 8);
    const c = await submit("C", 7);
    const plugin = await openPluginSocket(server.url, key.key);
    sockets.push(plugin);
    expect(await plugin.ask({ type: "hello", pluginVersion: "4.0.0.0" })).toMatchObject({ type: "ack" });
    // The dispatches the creations and the hello asked for are taken as done: only the edits' own may follow.
    await db().execute(sql`select graphile_worker.remove_job(${`dispatch:${observatory.id}`})`);
    expect(await dispatchJobs(observatory.id)).toEqual([]);

    const edit = (id: string, priority: number) => call(`/observations/${id}`, { method: "PUT", token: owner.token, json: { priority } });
    const queued = async (what: string, count: number) =>
      until(`${what} to queue (${count} waiting)`, async () => (await waitingOnLocks()) >= count, { intervalMs: 5 });
    const holds: Array<Promise<TableHold>> = [];
    const hold = () => {
      const next = holdTable(server.databaseUrl, "organization_members");
      holds.push(next);
      return next;
    };
    let dispatched: Awaited<ReturnType<typeof dispatchObservatory>> | undefined;
    try {
      const first = await hold();
      const editA = edit(a.id, 3);
      await queued("edit A", 1);
      const second = hold();
      await queued("hold 2", 2);
      const editB = edit(b.id, 2);
      await queued("edit B", 3);
      const third = hold();
      await queued("hold 3", 4);
      const editC = edit(c.id, 1);
      await queued("edit C", 5);
      const dispatch = dispatchObservatory({ deps: server.server.runtime.deps, observatoryId: observatory.id });

      await until("plan 1 to wait for A's row", () => waitsForRowOf(a.id), { intervalMs: 5 });
      await first.release();
      expect((await editA).status).toBe(200);
      await until("plan 2 to wait for B's row", () => waitsForRowOf(b.id), { intervalMs: 5 });
      await (await second).release();
      expect((await editB).status).toBe(200);
      await until("plan 3 to wait for C's row", () => waitsForRowOf(c.id), { intervalMs: 5 });
      await (await third).release();
      expect((await editC).status).toBe(200);
      dispatched = await dispatch;
    } finally {
      for (const held of holds) await (await held).release();
    }

    // It gave up: nothing assigned, and a dispatch waits, queued by the edits.
    expect(dispatched).toBeNull();
    const statusOf = async (id: string) => ((await must(`/observations/${id}`, { token: owner.token }, 200)) as { status: string }).status;
    expect([await statusOf(a.id), await statusOf(b.id), await statusOf(c.id)]).toEqual(["pending", "pending", "pending"]);
    expect((await dispatchJobs(observatory.id)).length).toBeGreaterThan(0);

    // A worker runs the queued dispatch: the first in the order the edits left (A, priority 3) is assigned.
    worker = await startTestServer({ MERIDIAN_ROLE: "all", DATABASE_URL: server.databaseUrl });
    await until("the follow-up dispatch to assign A", async () => (await statusOf(a.id)) === "assigned");
    await until("every dispatch job to have run", async () => (await dispatchJobs(observatory.id)).length === 0);
    const assigned = () => plugin.received().flatMap((message) => (message.type === "assign" ? [message.observation.id] : []));
    await until("the plugin to be told", async () => assigned().length > 0);

    // Once: one observation assigned, one move to assigned in its history, one assign sent.
    expect([await statusOf(b.id), await statusOf(c.id)]).toEqual(["pending", "pending"]);
    const history = (await must(`/observations/${a.id}/history`, { token: owner.token }, 200)) as { items: Array<{ to: string }> };
    expect(history.items.filter((entry) => entry.to === "assigned")).toHaveLength(1);
    expect(assigned()).toEqual([a.id]);
  });
});
