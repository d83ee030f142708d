import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcData, trpcErrorCode } from "../support/json-api";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

/**
 * `GET /network/plan/observations/{id}` and its tRPC twin `network.observationPlace`: what the network plan says of one
 * observation (issue 60, point 5: the observation page says where and when it is planned, or why not at each observatory).
 */
const ADMIN = { email: "network-plan-place-admin@example.com", password: "network plan place admin password" };
const HOUR = 3_600_000;

interface NetworkPlan {
  computedAt: string | null;
  slots: Array<{ observationId: string; observatoryId: string; start: string; end: string }>;
  unscheduled: Array<{ observationId: string; reasons: Array<{ observatoryId: string; code: string; until: string | null }> }>;
}
interface PlanPlace {
  observationId: string;
  computedAt: string | null;
  horizonEnd: string | null;
  slots: Array<{ observatoryId: string; timeZone: string; start: string; end: string }>;
  reasons: Array<{ observatoryId: string; timeZone: string; code: string; until: string | null }>;
}

let server: TestServer;
let owner: Account;
let viewer: Account;
let stranger: Account;
let first: string;
let second: string;
let planned: { id: string };
let leftOut: { id: string };
const { must, createObservation, addObservatoryMember } = jsonApi(() => server);

const planOf = (account: Account) => must("/network/plan", { token: account.token }, 200) as Promise<NetworkPlan>;
const placeOf = (account: Account, observationId: string) =>
  must(`/network/plan/observations/${observationId}`, { token: account.token }, 200) as Promise<PlanPlace>;

/** The whole plan and the observation's place, read from the same plan (one is made every minute, and after every change). */
const bothOf = (account: Account, observationId: string) =>
  until("the whole plan and the place read from the same plan", async () => {
    const [plan, place] = await Promise.all([planOf(account), placeOf(account, observationId)]);
    return plan.computedAt === place.computedAt ? { plan, place } : undefined;
  });

beforeAll(async () => {
  ({ server } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all" }));
  [owner, viewer, stranger] = [await createAccount(server), await createAccount(server), await createAccount(server)];
  const observatory = async (name: string) =>
    ((await must("/observatories", { method: "POST", token: owner.token, json: { name } }, 201)) as { id: string }).id;
  [first, second] = [await observatory(`Place ${randomUUID().slice(0, 6)}`), await observatory(`Place ${randomUUID().slice(0, 6)}`)];
  await must(`/observatories/${second}`, { method: "PUT", token: owner.token, json: { timeZone: "Atlantic/Azores" } }, 200);
  await addObservatoryMember(owner, first, viewer, { can_view: true });
  const projectId = ((await must("/projects", { method: "POST", token: owner.token, json: { name: "Plan places" } }, 201)) as { id: string }).id;
  // Neither observatory has a location or ever connected (it counts as available): the first runs at once.
  planned = await createObservation(owner, { projectId, observatoryId: first, name: "Planned", priority: 7, bypassDarkness: true });
  // Its window opens after the plan's 72 hours: left out at both of its candidates.
  const opens = Date.now() + 100 * HOUR;
  leftOut = await createObservation(owner, {
    projectId,
    candidateObservatoryIds: [first, second],
    name: "Left out",
    bypassDarkness: true,
    type: "time_based",
    fixedTimeStart: new Date(opens).toISOString(),
    fixedTimeEnd: new Date(opens + HOUR).toISOString(),
  });
  await until("one observation planned, the other left out", async () => {
    const plan = await planOf(owner);
    return plan.slots.some((slot) => slot.observationId === planned.id) && plan.unscheduled.some((item) => item.observationId === leftOut.id);
  });
});
afterAll(async () => {
  await server?.stop();
});

describe("GET /network/plan/observations/{id}", () => {
  it("says where and when the plan runs a planned observation, on that observatory's clock, as the whole plan does", async () => {
    const { plan, place } = await bothOf(owner, planned.id);
    const slot = plan.slots.find((each) => each.observationId === planned.id)!;
    expect(place).toMatchObject({ observationId: planned.id, reasons: [] });
    expect(place.slots).toEqual([{ observatoryId: first, timeZone: "UTC", start: slot.start, end: slot.end }]);
    expect(Date.parse(place.horizonEnd!) - Date.parse(place.computedAt!)).toBe(72 * HOUR);
  });

  it("says why the plan leaves an observation out at each of its candidates, each with its zone, as the whole plan does", async () => {
    const { plan, place } = await bothOf(owner, leftOut.id);
    const entry = plan.unscheduled.find((item) => item.observationId === leftOut.id)!;
    expect(place.slots).toEqual([]);
    expect(place.reasons.map(({ timeZone: _zone, ...reason }) => reason)).toEqual(entry.reasons);
    expect(place.reasons.map((reason) => [reason.observatoryId, reason.timeZone])).toEqual(
      expect.arrayContaining([
        [first, "UTC"],
        [second, "Atlantic/Azores"],
      ]),
    );
    expect(place.reasons).toHaveLength(2);
  });

  it("gives a reader the reasons only at the observatories it may view", async () => {
    const place = await placeOf(viewer, leftOut.id);
    expect(place.reasons.map((reason) => reason.observatoryId)).toEqual([first]);
  });

  it("answers 404 for an id that does not exist and for a caller who may not read the observation, and 401 signed out", async () => {
    await expectProblem(await server.request("/network/plan/observations/obs_doesnotexist", { token: owner.token }), 404, "NOT_FOUND");
    await expectProblem(await server.request(`/network/plan/observations/${leftOut.id}`, { token: stranger.token }), 404, "NOT_FOUND");
    await expectProblem(await server.request(`/network/plan/observations/${leftOut.id}`), 401, "UNAUTHENTICATED");
  });
});

describe("tRPC network.observationPlace", () => {
  it("answers what REST answers, and refuses as REST does", async () => {
    const input = encodeURIComponent(JSON.stringify({ id: leftOut.id }));
    const viaTrpc = async () => trpcData<PlanPlace>(await server.request(`/trpc/network.observationPlace?input=${input}`, { token: viewer.token }));
    const [place, rest] = await until("both faces read from the same plan", async () => {
      const both = await Promise.all([viaTrpc(), placeOf(viewer, leftOut.id)]);
      return both[0].computedAt === both[1].computedAt ? both : undefined;
    });
    expect(place).toEqual(rest);
    expect(place.reasons.map((reason) => reason.observatoryId)).toEqual([first]);
    expect(await trpcErrorCode(await server.request(`/trpc/network.observationPlace?input=${input}`, { token: stranger.token }))).toBe("NOT_FOUND");
    expect(await trpcErrorCode(await server.request(`/trpc/network.observationPlace?input=${input}`))).toBe("UNAUTHENTICATED");
  });
});
