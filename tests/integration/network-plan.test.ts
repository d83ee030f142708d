import { randomUUID } from "node:crypto";
import { ObservatoryClient } from "@meridian/observatory-client";
import { PLANNING_LOCK } from "@meridian/domain/network";
import { queueDispatch, queueNetworkPlan } from "@meridian/domain/observations";
import { inTransaction } from "@meridian/domain/platform";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { observingNetwork } from "../support/observing-network";
import { holdRows } from "../support/table-hold";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

/**
 * The network plan made by its job (issue 60, point 3): after every change, coalesced, one planner at a
 * time, and a planning that dies leaves the plan before it. The worker runs in the server's process.
 */
const ADMIN = { email: "network-plan-admin@example.com", password: "network plan admin password" };

let server: TestServer;
let owner: Account;
let observatoryId: string;
let projectId: string;
const { must, createObservation } = jsonApi(() => server);
const deps = () => server.server.runtime.deps;

interface StoredPlan {
  revision: number;
  doc: {
    computedAt: string;
    slots: Array<{ observationId: string; observatoryId: string; start: string }>;
    unscheduled: Array<{ observationId: string; reasons: Array<{ observatoryId: string; code: string }> }>;
  };
}

async function currentPlan(): Promise<StoredPlan | null> {
  const [row] = await deps().db.execute<{ revision: string; doc: StoredPlan["doc"] }>(sql`select revision, doc from network_plans where id = 'current'`);
  return row ? { revision: Number(row.revision), doc: row.doc } : null;
}

const planned = (plan: StoredPlan | null, observationId: string) => Boolean(plan?.doc.slots.some((slot) => slot.observationId === observationId));

/** The plan once it has every one of these observations in a slot. */
const planWith = (observationIds: string[]) =>
  until(`a plan with ${observationIds.length} observation(s)`, async () => {
    const plan = await currentPlan();
    return observationIds.every((id) => planned(plan, id)) ? plan! : undefined;
  });

/** No request for a plan waits any more, and none is being made. */
const plansSettled = () =>
  until("no plan to be asked for or under way", async () => {
    const [row] = await deps().db.execute<{ count: number }>(sql`
      select count(*)::int as count from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
       where k.identifier = 'network_plan' and j.attempts < j.max_attempts`);
    return row!.count === 0;
  });

/** While `hold` keeps the planning from writing, the plan before it stays in force, without the observation; released, it is planned. */
async function keptUntilReleased(options: { hold: { release(): Promise<unknown> }; before: number; observationId: string }) {
  const during = await currentPlan();
  expect(during?.revision ?? 0).toBe(options.before);
  expect(planned(during, options.observationId)).toBe(false);
  await options.hold.release();
  await planWith([options.observationId]);
}

const submit = (name = `Planned ${randomUUID().slice(0, 6)}`) => createObservation(owner, { projectId, observatoryId, name, bypassDarkness: true });

beforeAll(async () => {
  ({ server } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all" }));
  owner = await createAccount(server);
  // No location: only an observation's window holds it, so each is planned at once; never connected, it counts as available.
  observatoryId = ((await must("/observatories", { method: "POST", token: owner.token, json: { name: "Network" } }, 201)) as { id: string }).id;
  projectId = ((await must("/projects", { method: "POST", token: owner.token, json: { name: "Network" } }, 201)) as { id: string }).id;
});
afterAll(async () => {
  await server?.stop();
});

describe("the network plan, made by its job", () => {
  it("is made after a submission and plans it at its observatory", async () => {
    const observation = await submit();
    const plan = await planWith([observation.id]);
    const slot = plan.doc.slots.find((candidate) => candidate.observationId === observation.id)!;
    expect(slot.observatoryId).toBe(observatoryId);
    expect(plan.doc.unscheduled.map((item) => item.observationId)).not.toContain(observation.id);
  });

  it("is made again after a cancel, without the cancelled observation", async () => {
    const observation = await submit();
    await planWith([observation.id]);
    await must(`/observations/${observation.id}/cancel`, { method: "POST", token: owner.token }, 200);
    await until("the plan to leave the cancelled observation out", async () => !planned(await currentPlan(), observation.id));
  });

  it("plans nothing at an observatory whose plugin reported filters without one the observation asks for (FILTER_MISSING)", async () => {
    const { observatory, project, key } = await observingNetwork(must, owner);
    // Taken before the plugin reported any filter: nothing restricted it then.
    const exposures = [{ filter: "Ha", exposureSeconds: 60, count: 1, binning: 1 }];
    const observation = await createObservation(owner, {
      projectId: project.id,
      observatoryId: observatory.id,
      targets: [{ name: "M 1", ra: 83.6, dec: 22, exposures }],
    });
    await planWith([observation.id]);
    const plugin = new ObservatoryClient({ url: server.url, key: key.key, pluginVersion: "4.0.0.0", reconnect: false, equipment: { filters: ["L", "R"] } });
    await plugin.connect();
    try {
      const reasons = await until("the plan to leave it out for the missing filter", async () => {
        const plan = await currentPlan();
        return plan?.doc.unscheduled.find((item) => item.observationId === observation.id)?.reasons;
      });
      expect(reasons).toEqual([expect.objectContaining({ observatoryId: observatory.id, code: "FILTER_MISSING" })]);
    } finally {
      await plugin.close();
    }
  });

  it("is asked for once by a transaction whose changes each ask for it (a dispatch at each observatory asks too)", async () => {
    const other = ((await must("/observatories", { method: "POST", token: owner.token, json: { name: "Network too" } }, 201)) as { id: string }).id;
    const requests = await inTransaction(deps(), async (t) => {
      await Promise.all([queueDispatch({ t, observatoryId }), queueDispatch({ t, observatoryId: other })]);
      await queueNetworkPlan({ t });
      // Its own rows, not yet committed: added at the transaction's time.
      const [row] = await t.tx.execute<{ count: number }>(sql`
        select count(*)::int as count from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
         where k.identifier = 'network_plan' and j.created_at = now()`);
      return row!.count;
    });
    expect(requests).toBe(1);
  });

  it("makes few plans for a burst of 20 submissions", async () => {
    await plansSettled();
    const before = (await currentPlan())?.revision ?? 0;
    const burst = await Promise.all(Array.from({ length: 20 }, (_, index) => submit(`Burst ${index}`)));
    const plan = await planWith(burst.map((observation) => observation.id));
    await plansSettled();
    // One per observation without the coalescing; the minute's sweep may ask for one more.
    expect((await currentPlan())!.revision - before).toBeLessThanOrEqual(5);
    expect(plan.revision).toBeGreaterThan(before);
  });

  it("leaves the plan before it in force when a planning dies before it is written, and plans on the next attempt", async () => {
    await plansSettled();
    const before = (await currentPlan())?.revision ?? 0;
    // Writes to the plan wait; reads of it do not.
    const hold = await holdRows(server.databaseUrl, "lock table network_plans in exclusive mode");
    const killer = postgres(server.databaseUrl, { max: 1, onnotice: () => undefined });
    try {
      const observation = await submit();
      await until("the planning to reach its write", () => hold.waiting());
      // The planning's process dies: PostgreSQL ends its connection, and its transaction with it.
      const waiting = (await killer<Array<{ pid: number }>>`select pid from pg_locks where relation = 'network_plans'::regclass and not granted`).map(
        (row) => row.pid,
      );
      await killer`select pg_terminate_backend(pid) from unnest(${waiting}::int[]) pid`;
      await until(
        "the planning's connection to end",
        async () => (await killer`select 1 from pg_stat_activity where pid = any(${waiting}::int[])`).length === 0,
      );
      // Its requests come back with the rollback: the next attempt plans the observation.
      await keptUntilReleased({ hold, before, observationId: observation.id });
    } finally {
      await hold.release();
      await killer.end();
    }
  });

  it("has one planner at a time: a planning waits while another holds the planning lock", async () => {
    await plansSettled();
    const before = (await currentPlan())?.revision ?? 0;
    const [lock] = await deps().db.execute<{ key: number }>(sql`select ${PLANNING_LOCK} as key`);
    const hold = await holdRows(server.databaseUrl, `select pg_advisory_xact_lock(${lock!.key})`);
    try {
      const observation = await submit();
      await until("a planning to wait for the lock", () => hold.waiting());
      await keptUntilReleased({ hold, before, observationId: observation.id });
    } finally {
      await hold.release();
    }
  });
});
