import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcData } from "../support/json-api";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";
import { openWebSocket, type OpenClient } from "../support/ws-client";

/** The night plan (`GET /observatories/{id}/plan`) reads the network plan in force (issue 60, points 3 and 5). */
const ADMIN = { email: "night-plan-network-admin@example.com", password: "night plan network admin password" };

interface Reason {
  code: string;
  until: string | null;
  observatoryId?: string;
}
interface NightPlan {
  date: string;
  source: "network" | "projection";
  horizonEnd: string | null;
  slots: Array<{ observationId: string; status: string; start: string; end: string }>;
  unscheduled: Array<{ observationId: string; blockedBy: Reason }>;
}
interface NetworkPlan {
  horizonEnd: string | null;
  slots: Array<{ observationId: string; observatoryId: string; start: string; end: string }>;
}

let server: TestServer;
let owner: Account;
let first: string;
let second: string;
let busy: { id: string };
let either: { id: string };
let planned: NetworkPlan["slots"][number];
let projectId: string;
const { must, createObservation } = jsonApi(() => server);

const nightPlanOf = (observatoryId: string, query = "") =>
  must(`/observatories/${observatoryId}/plan${query}`, { token: owner.token }, 200) as Promise<NightPlan>;
const networkPlan = () => must(`/network/plan?observatoryIds=${first},${second}`, { token: owner.token }, 200) as Promise<NetworkPlan>;
/** The night plan and the network plan read from the same plan in force (it is made again every minute, and after each change). */
const readTogether = (observatoryId: string) =>
  until("the night plan and the network plan read from one plan", async () => {
    const [night, network] = [await nightPlanOf(observatoryId), await networkPlan()];
    const slot = network.slots.find((each) => each.observationId === either.id);
    return night.horizonEnd === network.horizonEnd && slot ? { night, slot } : undefined;
  });
const exposures = (seconds: number) => [{ filter: "L", exposureSeconds: seconds, count: 1, binning: 1 }];

beforeAll(async () => {
  ({ server } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all" }));
  owner = await createAccount(server);
  const observatory = async (name: string) =>
    ((await must("/observatories", { method: "POST", token: owner.token, json: { name } }, 201)) as { id: string }).id;
  [first, second] = [await observatory(`First ${randomUUID().slice(0, 6)}`), await observatory(`Second ${randomUUID().slice(0, 6)}`)];
  projectId = ((await must("/projects", { method: "POST", token: owner.token, json: { name: "Night from the network" } }, 201)) as { id: string }).id;
  // Without a location and bypassing darkness, each can run at once: an hour of higher priority holds the first,
  // so the plan starts the one with both candidates at the second, now.
  const target = (name: string, seconds: number) => [{ name, ra: 310.36, dec: 45.28, exposures: exposures(seconds) }];
  busy = await createObservation(owner, { projectId, observatoryId: first, name: "Busy", priority: 9, bypassDarkness: true, targets: target("Busy", 3600) });
  either = await createObservation(owner, {
    projectId,
    candidateObservatoryIds: [first, second],
    name: "Either",
    priority: 5,
    bypassDarkness: true,
    targets: target("Either", 60),
  });
  planned = await until("the network plan to place the one with candidates", async () =>
    (await networkPlan()).slots.find((slot) => slot.observationId === either.id),
  );
});
afterAll(async () => {
  await server?.stop();
});

describe("GET /observatories/{id}/plan from the network plan", () => {
  it("shows the network plan's slot at the observatory it chose, and not at the other candidate", async () => {
    expect(planned.observatoryId).toBe(second);
    const atSecond = await readTogether(second);
    expect(atSecond.night.source).toBe("network");
    expect(atSecond.night.slots).toEqual([
      expect.objectContaining({ observationId: either.id, status: "pending", start: atSecond.slot.start, end: atSecond.slot.end }),
    ]);
    const atFirst = await readTogether(first);
    expect(atFirst.night.source).toBe("network");
    expect(atFirst.night.slots.map((slot) => slot.observationId)).toEqual([busy.id]);
    // The other candidate says where and when the plan runs it.
    expect(atFirst.night.unscheduled).toEqual([
      expect.objectContaining({ observationId: either.id, blockedBy: { code: "PLANNED_ELSEWHERE", until: atFirst.slot.start, observatoryId: second } }),
    ]);
  });

  it("answers the same over tRPC (observatories.plan)", async () => {
    const input = encodeURIComponent(JSON.stringify({ id: first }));
    const plan = await trpcData<NightPlan>(await server.request(`/trpc/observatories.plan?input=${input}`, { token: owner.token }));
    expect(plan.slots.map((slot) => slot.observationId)).toEqual([busy.id]);
    expect(plan.unscheduled.map((item) => [item.observationId, item.blockedBy.code])).toEqual([[either.id, "PLANNED_ELSEWHERE"]]);
  });

  it("projects a night that begins past the plan's horizon from this observatory alone, and says so", async () => {
    const tonight = await nightPlanOf(first);
    expect(tonight.horizonEnd).not.toBeNull();
    // Without a location a night is a calendar day of the observatory (UTC): the fourth after today begins past 72 hours.
    const later = new Date(Date.parse(`${tonight.date}T00:00:00Z`) + 4 * 86_400_000).toISOString().slice(0, 10);
    expect(Date.parse(`${later}T00:00:00Z`)).toBeGreaterThanOrEqual(Date.parse(tonight.horizonEnd!));
    const projected = await nightPlanOf(first, `?night=${later}`);
    expect(projected).toMatchObject({ date: later, source: "projection", horizonEnd: tonight.horizonEnd });
  });
});

describe("GET /observations/{id}/forecast from the network plan", () => {
  it("gives the network plan's run: where, and when it starts and ends", async () => {
    const { forecast, slot } = await until("the forecast and the network plan read from one plan", async () => {
      // The plan in force before and after the forecast's read is one plan: the forecast read it too.
      const before = await networkPlan();
      const read = (await must(`/observations/${either.id}/forecast`, { token: owner.token }, 200)) as Record<string, unknown>;
      const after = await networkPlan();
      const run = after.slots.find((each) => each.observationId === either.id);
      return run && before.horizonEnd === after.horizonEnd ? { forecast: read, slot: run } : undefined;
    });
    expect(forecast).toMatchObject({
      observatoryId: second,
      expectedStart: slot.start,
      expectedEnd: slot.end,
      night: slot.start.slice(0, 10),
      timeZone: "UTC",
      blockedBy: null,
    });
  });
});

describe("WebSocket network.plan_changed", () => {
  const sockets: OpenClient[] = [];
  afterAll(async () => {
    for (const socket of sockets) await socket.close().catch(() => undefined);
  });
  const socketOf = async (account: Account) => {
    const socket = await openWebSocket(`${server.url.replace(/^http/, "ws")}/ws`, { authorization: `Bearer ${account.token}` });
    sockets.push(socket);
    return socket;
  };
  const planChangedSince = (socket: OpenClient, since: string) =>
    socket.waitFor(
      (message) => message.type === "network.plan_changed" && (message.data as { computedAt: string }).computedAt >= since,
      "network.plan_changed for a plan made after the submission",
    );

  it("tells every connected user when a new plan is in force after a submission, and only when: not a slot", async () => {
    const stranger = await createAccount(server);
    const [ownerSocket, strangerSocket] = [await socketOf(owner), await socketOf(stranger)];
    const created = { projectId, observatoryId: second, name: "Told", bypassDarkness: true, priority: 1 };
    const submitted = (await createObservation(owner, created)) as { id: string; name: string; createdAt?: string };
    // A plan made after the submission (it is asked for in the submission's transaction) reads it.
    const submittedAt = submitted.createdAt!;
    await planChangedSince(ownerSocket, submittedAt);
    const plan = (await networkPlan()) as NetworkPlan & { unscheduled: Array<{ observationId: string }> };
    expect([...plan.slots, ...plan.unscheduled].map((item) => item.observationId)).toContain(submitted.id);
    // A user who may see no observatory and no observation is told the same moment, and nothing else.
    const toStranger = await planChangedSince(strangerSocket, submittedAt);
    expect(toStranger).toEqual({ type: "network.plan_changed", data: { computedAt: expect.any(String) } });
  });
});
