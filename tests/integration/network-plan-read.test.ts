import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcData, trpcErrorCode } from "../support/json-api";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

/** `GET /network/plan`, its tRPC twin `network.plan`, and the forecast's `observatoryId` (issue 60, point 3). */
const ADMIN = { email: "network-plan-read-admin@example.com", password: "network plan read admin password" };
const LA_PALMA = { latitude: 28.7606, longitude: -17.8792, elevation: 2396 };

interface NetworkPlan {
  computedAt: string | null;
  horizonEnd: string | null;
  objective: number;
  observatories: Array<{ observatoryId: string; timeZone: string; nights: Array<{ darkStart: string; darkEnd: string }> }>;
  slots: Array<{ observationId: string; observatoryId: string; name: string; priority: number; start: string; end: string }>;
  unscheduled: Array<{ observationId: string; reasons: Array<{ observatoryId: string; code: string; until: string | null }> }>;
}

let server: TestServer;
let owner: Account;
let viewer: Account;
let stranger: Account;
let first: string;
let second: string;
let atFirst: { id: string };
let atSecond: { id: string };
const { must, call, createObservation, addObservatoryMember } = jsonApi(() => server);

const planOf = (account: Account, query = "") => must(`/network/plan${query}`, { token: account.token }, 200) as Promise<NetworkPlan>;
const slotOf = (plan: NetworkPlan, observationId: string) => plan.slots.find((slot) => slot.observationId === observationId);

beforeAll(async () => {
  ({ server } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all" }));
  [owner, viewer, stranger] = [await createAccount(server), await createAccount(server), await createAccount(server)];
  const observatory = async (name: string) =>
    ((await must("/observatories", { method: "POST", token: owner.token, json: { name } }, 201)) as { id: string }).id;
  [first, second] = [await observatory(`Read ${randomUUID().slice(0, 6)}`), await observatory(`Read ${randomUUID().slice(0, 6)}`)];
  await addObservatoryMember(owner, first, viewer, { can_view: true });
  const projectId = ((await must("/projects", { method: "POST", token: owner.token, json: { name: "Network reads" } }, 201)) as { id: string }).id;
  atFirst = await createObservation(owner, { projectId, observatoryId: first, name: "At the first", priority: 7, bypassDarkness: true });
  atSecond = await createObservation(owner, { projectId, observatoryId: second, name: "At the second", priority: 3, bypassDarkness: true });
  // Neither observatory has a location or ever connected (it counts as available): both are planned at once.
  await until("both observations planned", async () => {
    const plan = await planOf(owner);
    return Boolean(slotOf(plan, atFirst.id) && slotOf(plan, atSecond.id));
  });
});
afterAll(async () => {
  await server?.stop();
});

describe("GET /network/plan", () => {
  it("gives every observatory the caller may view, their slots and the objective over them", async () => {
    const plan = await planOf(owner);
    expect(plan.computedAt).not.toBeNull();
    expect(Date.parse(plan.horizonEnd!) - Date.parse(plan.computedAt!)).toBe(72 * 3_600_000);
    expect(plan.observatories.map((observatory) => observatory.observatoryId)).toEqual([first, second].sort());
    expect(plan.observatories.every((observatory) => observatory.timeZone === "UTC" && observatory.nights.length === 0)).toBe(true);
    expect(slotOf(plan, atFirst.id)).toMatchObject({ observatoryId: first, name: "At the first", priority: 7 });
    expect(slotOf(plan, atSecond.id)).toMatchObject({ observatoryId: second, name: "At the second", priority: 3 });
    const objective = plan.slots.reduce((total, slot) => total + (slot.priority * (Date.parse(slot.end) - Date.parse(slot.start))) / 1000, 0);
    expect(plan.objective).toBeCloseTo(objective, 6);
  });

  it("keeps to the observatories asked for", async () => {
    const plan = await planOf(owner, `?observatoryIds=${first}`);
    expect(plan.observatories.map((observatory) => observatory.observatoryId)).toEqual([first]);
    expect(plan.slots.map((slot) => slot.observatoryId)).toEqual([first]);
    expect(slotOf(plan, atSecond.id)).toBeUndefined();
  });

  it("gives a viewer of one observatory only that one, by default", async () => {
    const plan = await planOf(viewer);
    expect(plan.observatories.map((observatory) => observatory.observatoryId)).toEqual([first]);
    expect(plan.slots.map((slot) => slot.observationId)).toEqual([atFirst.id]);
  });

  it("gives a stranger nothing by default", async () => {
    const plan = await planOf(stranger);
    expect(plan).toMatchObject({ observatories: [], slots: [], unscheduled: [], objective: 0 });
  });

  it("answers 403 when the caller may not view an observatory asked for, or it does not exist", async () => {
    await expectProblem(await server.request(`/network/plan?observatoryIds=${first},${second}`, { token: viewer.token }), 403, "FORBIDDEN");
    await expectProblem(await server.request(`/network/plan?observatoryIds=${first}`, { token: stranger.token }), 403, "FORBIDDEN");
    await expectProblem(await server.request(`/network/plan?observatoryIds=obs_doesnotexist`, { token: owner.token }), 403, "FORBIDDEN");
  });

  it("answers 400 for an empty list or more than 50 observatories, and 401 signed out", async () => {
    await expectProblem(await server.request("/network/plan?observatoryIds=", { token: owner.token }), 400, "VALIDATION_FAILED");
    const many = Array.from({ length: 51 }, (_, index) => `obs_${index}`).join(",");
    await expectProblem(await server.request(`/network/plan?observatoryIds=${many}`, { token: owner.token }), 400, "VALIDATION_FAILED");
    await expectProblem(await server.request(`/network/plan?observatoryIds=${first}`), 401, "UNAUTHENTICATED");
  });

  it("draws an observatory's dark periods once it has a location", async () => {
    await must(`/observatories/${second}`, { method: "PUT", token: owner.token, json: { location: LA_PALMA } }, 200);
    const plan = await until("the plan made with the location", async () => {
      const read = await planOf(owner, `?observatoryIds=${second}`);
      return read.observatories[0]!.nights.length > 0 ? read : undefined;
    });
    const computedAt = Date.parse(plan.computedAt!);
    for (const night of plan.observatories[0]!.nights) {
      expect(Date.parse(night.darkEnd)).toBeGreaterThan(Date.parse(night.darkStart));
      expect(Date.parse(night.darkEnd)).toBeGreaterThan(computedAt);
      expect(Date.parse(night.darkStart)).toBeLessThan(Date.parse(plan.horizonEnd!));
    }
  });
});

describe("tRPC network.plan", () => {
  it("answers what REST answers, and refuses as REST does", async () => {
    const input = encodeURIComponent(JSON.stringify({ observatoryIds: first }));
    const plan = await trpcData<NetworkPlan>(await server.request(`/trpc/network.plan?input=${input}`, { token: viewer.token }));
    expect(plan.observatories.map((observatory) => observatory.observatoryId)).toEqual([first]);
    expect(slotOf(plan, atFirst.id)).toMatchObject({ observatoryId: first });
    const both = encodeURIComponent(JSON.stringify({ observatoryIds: `${first},${second}` }));
    expect(await trpcErrorCode(await server.request(`/trpc/network.plan?input=${both}`, { token: viewer.token }))).toBe("FORBIDDEN");
    expect(await trpcErrorCode(await server.request(`/trpc/network.plan?input=${input}`))).toBe("UNAUTHENTICATED");
  });
});

describe("GET /observations/{id}/forecast", () => {
  it("says where the plan runs a pending observation, and null once it has ended", async () => {
    const forecast = (await must(`/observations/${atFirst.id}/forecast`, { token: owner.token }, 200)) as { observatoryId: string | null };
    expect(forecast.observatoryId).toBe(first);
    const projectId = ((await must("/projects", { method: "POST", token: owner.token, json: { name: "Ended" } }, 201)) as { id: string }).id;
    const ended = await createObservation(owner, { projectId, observatoryId: first, name: "Ended", bypassDarkness: true });
    await must(`/observations/${ended.id}/cancel`, { method: "POST", token: owner.token }, 200);
    expect(((await must(`/observations/${ended.id}/forecast`, { token: owner.token }, 200)) as { observatoryId: string | null }).observatoryId).toBeNull();
    const { status } = await call(`/observations/${atFirst.id}/forecast`, { token: stranger.token });
    expect(status).toBe(404);
  });
});
