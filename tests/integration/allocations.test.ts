import { randomBytes } from "node:crypto";
import { ObservatorySimulator } from "@meridian/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { controlServerClock, type TestClock } from "../support/test-clock";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

const ADMIN = { email: "allocations-admin@example.com", password: "allocations admin password" };
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** The clock moves in steps no longer than this, so the minute's sweep never finds the plugin silent (the timeout is an hour). */
const CLOCK_STEP = 20 * MINUTE;
const T0 = Date.parse("2027-01-04T00:00:00Z");

let server: TestServer;
let adminToken: string;
let clock: TestClock;
let owner: Account;
const closers: Array<() => Promise<unknown>> = [];
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all" }));
  await must("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { heartbeatTimeoutSeconds: 3600 } }, 200);
  clock = controlServerClock(server, T0);
  owner = await createAccount(server);
});
afterAll(async () => {
  for (const close of closers) await close().catch(() => undefined);
  await server?.stop();
});
const { must, call } = jsonApi(() => server);
const tag = () => randomBytes(3).toString("hex");
const iso = (ms: number) => new Date(ms).toISOString();

interface Observation {
  id: string;
  status: string;
}
interface Usage {
  observatoryId: string;
  allocatedHours: number | null;
  usedHours: number;
  pendingHours: number;
}

/**
 * An observatory without a location (no darkness to wait for) whose estimates are the exposure
 * times alone, a project, and a simulator whose exposures last until the test ends them.
 */
async function setting(options: { dispatch?: boolean } = {}) {
  const observatory = (await must("/observatories", { method: "POST", token: owner.token, json: { name: `Allocated ${tag()}` } }, 201)) as { id: string };
  await must(
    `/observatories/${observatory.id}`,
    { method: "PUT", token: owner.token, json: { settings: { slewSeconds: 0, readoutSeconds: 0 }, dispatchEnabled: options.dispatch ?? true } },
    200,
  );
  const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: `Allocated ${tag()}` } }, 201)) as { id: string };
  const key = (
    (await must(`/observatories/${observatory.id}/api-keys`, { method: "POST", token: owner.token, json: { name: "plugin" } }, 201)) as { key: string }
  ).key;
  const endings: Array<() => void> = [];
  const simulator = new ObservatorySimulator({ url: server.url, key, sleep: () => new Promise<void>((resolve) => endings.push(resolve)) });
  closers.push(() => simulator.close());
  await simulator.connect();
  const observe = async (name: string, minutes: number) =>
    (await must(
      "/observations",
      {
        method: "POST",
        token: owner.token,
        json: {
          name,
          projectId: project.id,
          observatoryId: observatory.id,
          targets: [{ name, ra: 10, dec: 20, exposures: [{ filter: "L", exposureSeconds: minutes * 60, count: 1, binning: 1 }] }],
        },
      },
      201,
    )) as Observation;
  const statusOf = async (id: string, status: string) =>
    until(`${id} to be ${status}`, async () => ((await must(`/observations/${id}`, { token: owner.token })) as Observation).status === status);
  /** Ends the exposures under way: the simulator reports acquisition_complete at the clock's time. */
  const endExposures = async (id: string) => {
    await until("the simulator to be exposing", async () => endings.length > 0);
    endings.shift()!();
    await statusOf(id, "completed");
  };
  const allocate = (json: Record<string, unknown>) =>
    must(`/observatories/${observatory.id}/allocations/${project.id}`, { method: "PUT", token: owner.token, json }, 200);
  const usage = async () =>
    ((await must(`/projects/${project.id}/usage`, { token: owner.token })) as { items: Usage[] }).items.find((item) => item.observatoryId === observatory.id)!;
  const allocations = async () =>
    ((await must(`/observatories/${observatory.id}/allocations`, { token: owner.token })) as { items: Array<{ projectId: string; usedHours: number }> }).items;
  return { observatory, project, observe, statusOf, endExposures, allocate, usage, allocations };
}

/** Moves the clock forward in steps, so the plugin is seen between them. */
async function advanceTo(ms: number) {
  while (clock.now() < ms) {
    clock.set(Math.min(clock.now() + CLOCK_STEP, ms));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe("time allocation: charging and dispatch", () => {
  it("charges each run from in_progress to its end, clipped to the period, a run under way up to now", { timeout: 300_000 }, async () => {
    const s = await setting();
    // A: in progress from T0+30 min, before the period (T0+1 h to T0+3 h) is granted or begins.
    await advanceTo(T0 + 30 * MINUTE);
    const a = await s.observe(`A ${tag()}`, 10);
    await s.statusOf(a.id, "in_progress");
    const allocation = await s.allocate({ hours: 1, periodStart: iso(T0 + HOUR), periodEnd: iso(T0 + 3 * HOUR) });
    expect(allocation).toEqual({ projectId: s.project.id, hours: 1, periodStart: iso(T0 + HOUR), periodEnd: iso(T0 + 3 * HOUR) });
    // Before the period nothing counts; under way at T0+1.5 h, the half hour since the period began does.
    expect((await s.usage()).usedHours).toBe(0);
    await advanceTo(T0 + 90 * MINUTE);
    expect(await s.allocations()).toEqual([expect.objectContaining({ projectId: s.project.id, usedHours: 0.5 })]);
    // It ends at T0+1 h 45: three quarters of an hour charged.
    await advanceTo(T0 + 105 * MINUTE);
    await s.endExposures(a.id);
    expect(await s.usage()).toMatchObject({ allocatedHours: 1, usedHours: 0.75, pendingHours: 0 });

    // B (15 minutes) fits in what is left; it starts at T0+2.5 h and ends after the period: charged up to its end only.
    await advanceTo(T0 + 150 * MINUTE);
    const b = await s.observe(`B ${tag()}`, 15);
    await s.statusOf(b.id, "in_progress");
    await advanceTo(T0 + 210 * MINUTE);
    await s.endExposures(b.id);
    expect((await s.usage()).usedHours).toBe(1.25);

    // After the period the project has no time here: C waits, with the reason, and counts as pending.
    const c = await s.observe(`C ${tag()}`, 5);
    const queue = (await must(`/observatories/${s.observatory.id}/queue`, { token: owner.token })) as {
      items: Array<{ observation: { id: string }; blockedBy: { code: string; until: string | null } | null }>;
    };
    expect(queue.items.find((item) => item.observation.id === c.id)?.blockedBy).toEqual({ code: "ALLOCATION_EXHAUSTED", until: null });
    expect(await s.usage()).toMatchObject({ usedHours: 1.25, pendingHours: 0.08 });
    // Removed, the project is unlimited again, and C runs.
    await must(`/observatories/${s.observatory.id}/allocations/${s.project.id}`, { method: "DELETE", token: owner.token }, 204);
    await s.statusOf(c.id, "in_progress");
    expect((await s.usage()).allocatedHours).toBeNull();
    await s.endExposures(c.id);
  });

  it("gives the last hour to one of two observations that each need 40 minutes, in the plan and in dispatch", { timeout: 300_000 }, async () => {
    const s = await setting({ dispatch: false });
    await s.allocate({ hours: 1, periodStart: iso(clock.now()) });
    const first = await s.observe(`First ${tag()}`, 40);
    const second = await s.observe(`Second ${tag()}`, 40);
    // The night plan is the network plan's: read once a plan made after both submissions is in force.
    const plan = await until("the night plan to hold both observations", async () => {
      const read = (await must(`/observatories/${s.observatory.id}/plan`, { token: owner.token })) as {
        slots: Array<{ observationId: string }>;
        unscheduled: Array<{ observationId: string; blockedBy: { code: string } }>;
      };
      return [...read.slots, ...read.unscheduled].filter((item) => [first.id, second.id].includes(item.observationId)).length === 2 ? read : undefined;
    });
    expect(plan.slots.map((slot) => slot.observationId)).toEqual([first.id]);
    expect(plan.unscheduled).toEqual([
      expect.objectContaining({ observationId: second.id, blockedBy: expect.objectContaining({ code: "ALLOCATION_EXHAUSTED" }) }),
    ]);

    await must(`/observatories/${s.observatory.id}`, { method: "PUT", token: owner.token, json: { dispatchEnabled: true } }, 200);
    await s.statusOf(first.id, "in_progress");
    await advanceTo(clock.now() + 40 * MINUTE);
    await s.endExposures(first.id);
    // 20 minutes are left: the second stays pending, held by its allocation, however often dispatch runs.
    await advanceTo(clock.now() + 2 * MINUTE);
    const queue = (await must(`/observatories/${s.observatory.id}/queue`, { token: owner.token })) as {
      items: Array<{ observation: { id: string }; eligible: boolean; blockedBy: { code: string } | null }>;
    };
    expect(queue.items).toEqual([
      expect.objectContaining({
        observation: expect.objectContaining({ id: second.id }),
        eligible: false,
        blockedBy: { code: "ALLOCATION_EXHAUSTED", until: null },
      }),
    ]);
    expect(((await must(`/observations/${second.id}`, { token: owner.token })) as Observation).status).toBe("pending");
    expect((await s.usage()).usedHours).toBeCloseTo(0.67, 2);
    // Twenty more minutes let it run.
    await s.allocate({ hours: 1.34, periodStart: iso(T0) });
    await s.statusOf(second.id, "in_progress");
    await s.endExposures(second.id);
  });
});

describe("time allocation: who may do what", () => {
  it("lets only observatory admins grant and remove, viewers read, project members see usage; 401 comes first", async () => {
    const viewer = await createAccount(server);
    const stranger = await createAccount(server);
    const member = await createAccount(server);
    const observatory = (await must("/observatories", { method: "POST", token: owner.token, json: { name: `Guarded ${tag()}` } }, 201)) as { id: string };
    const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: `Guarded ${tag()}` } }, 201)) as { id: string };
    await must(`/observatories/${observatory.id}/members`, { method: "POST", token: owner.token, json: { email: viewer.email } }, 201);
    await must(`/projects/${project.id}/members`, { method: "POST", token: owner.token, json: { email: member.email, role: "member" } }, 201);
    const path = `/observatories/${observatory.id}/allocations/${project.id}`;

    await expectProblem(await server.request(path, { method: "PUT", json: { hours: -1 } }), 401, "UNAUTHENTICATED");
    await expectProblem(await server.request(path, { method: "DELETE" }), 401, "UNAUTHENTICATED");
    await expectProblem(await server.request(`/observatories/${observatory.id}/allocations`), 401, "UNAUTHENTICATED");
    await expectProblem(await server.request(`/projects/${project.id}/usage`), 401, "UNAUTHENTICATED");

    expect((await call(path, { method: "PUT", token: viewer.token, json: { hours: 5 } })).body).toMatchObject({ code: "FORBIDDEN" });
    expect((await call(path, { method: "PUT", token: stranger.token, json: { hours: 5 } })).body).toMatchObject({ code: "NOT_FOUND" });
    expect((await call(`/observatories/${observatory.id}/allocations`, { token: stranger.token })).body).toMatchObject({ code: "NOT_FOUND" });
    expect((await call(`/projects/${project.id}/usage`, { token: stranger.token })).body).toMatchObject({ code: "NOT_FOUND" });
    for (const json of [
      { hours: 0 },
      { hours: "5" },
      {},
      { hours: 5, extra: true },
      { hours: 5, periodStart: "yesterday" },
      // Year 0000, which PostgreSQL cannot hold: stored, it broke every read of the allocations.
      { hours: 5, periodStart: "0000-01-01T00:00:00Z", periodEnd: "0001-01-01T00:00:00Z" },
    ])
      expect((await call(path, { method: "PUT", token: owner.token, json })).body).toMatchObject({ code: "VALIDATION_FAILED" });
    const backwards = await call(path, {
      method: "PUT",
      token: owner.token,
      json: { hours: 5, periodStart: "2027-03-01T00:00:00Z", periodEnd: "2027-02-01T00:00:00Z" },
    });
    expect(backwards.status).toBe(400);
    expect(backwards.body).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ path: "periodEnd" }] });
    expect((await call(`/observatories/${observatory.id}/allocations/prj_made_up`, { method: "PUT", token: owner.token, json: { hours: 5 } })).status).toBe(
      404,
    );
    await expectProblem(await server.request(path, { method: "DELETE", token: owner.token }), 404, "NOT_FOUND");

    // The period defaults to now and six months on.
    const granted = (await must(path, { method: "PUT", token: owner.token, json: { hours: 12.5 } }, 200)) as { periodStart: string; periodEnd: string };
    expect(Date.parse(granted.periodStart)).toBe(clock.now());
    const sixMonths = new Date(clock.now());
    sixMonths.setUTCMonth(sixMonths.getUTCMonth() + 6);
    expect(granted.periodEnd).toBe(sixMonths.toISOString());
    expect((await must(`/observatories/${observatory.id}/allocations`, { token: viewer.token })) as unknown).toEqual({
      items: [{ projectId: project.id, projectName: expect.any(String), hours: 12.5, usedHours: 0, ...granted }],
    });
    expect((await call(path, { method: "DELETE", token: viewer.token })).body).toMatchObject({ code: "FORBIDDEN" });
    const usage = (await must(`/projects/${project.id}/usage`, { token: member.token })) as { items: Usage[] };
    expect(usage.items).toEqual([expect.objectContaining({ observatoryId: observatory.id, allocatedHours: 12.5, usedHours: 0, pendingHours: 0 })]);

    // Each change is in the observatory's history.
    await must(path, { method: "DELETE", token: owner.token }, 204);
    const history = (await must(`/observatories/${observatory.id}/history`, { token: owner.token })) as { items: Array<{ type: string }> };
    expect(history.items.map((item) => item.type)).toEqual(expect.arrayContaining(["allocation_set", "allocation_removed"]));
  });

  it("grants time only to a project the administrator can see or that observes here; any other is 404, its name not shown", async () => {
    const administrator = await createAccount(server);
    const outsider = await createAccount(server);
    const observatory = (await must("/observatories", { method: "POST", token: administrator.token, json: { name: `Granting ${tag()}` } }, 201)) as {
      id: string;
    };
    await must(
      `/observatories/${observatory.id}/members`,
      {
        method: "POST",
        token: administrator.token,
        json: { email: outsider.email, permissions: { can_view: true, can_observe: true, can_operate: false, can_admin: false } },
      },
      201,
    );
    const unseenName = `Unseen ${tag()}`;
    const unseen = (await must("/projects", { method: "POST", token: outsider.token, json: { name: unseenName } }, 201)) as { id: string };
    const observing = (await must("/projects", { method: "POST", token: outsider.token, json: { name: `Observing here ${tag()}` } }, 201)) as { id: string };
    expect((await call(`/projects/${unseen.id}`, { token: administrator.token })).status).toBe(404);
    const grant = (projectId: string) =>
      call(`/observatories/${observatory.id}/allocations/${projectId}`, { method: "PUT", token: administrator.token, json: { hours: 3 } });

    // As for a project that does not exist: nothing tells the administrator it does.
    const refused = await grant(unseen.id);
    const madeUp = await grant("prj_made_up");
    const answer = ({ status, body }: { status: number; body: unknown }) => {
      const { code, title, detail } = body as Record<string, unknown>;
      return { status, code, title, detail };
    };
    expect(answer(refused)).toEqual(answer(madeUp));
    expect(refused.body).toMatchObject({ status: 404, code: "NOT_FOUND" });
    const listed = await call(`/observatories/${observatory.id}/allocations`, { token: administrator.token });
    expect(listed.text).not.toContain(unseenName);
    expect((await call(`/projects/${unseen.id}/usage`, { token: outsider.token })).body).toEqual({ items: [] });

    // A project whose members observe here is the administrator's to limit, though they see nothing else of it.
    await must(
      "/observations",
      {
        method: "POST",
        token: outsider.token,
        json: {
          name: "Here",
          projectId: observing.id,
          observatoryId: observatory.id,
          targets: [{ name: "Here", ra: 10, dec: 20, exposures: [{ filter: "L", exposureSeconds: 60, count: 1, binning: 1 }] }],
        },
      },
      201,
    );
    expect((await grant(observing.id)).status).toBe(200);
    expect((await call(`/projects/${observing.id}`, { token: administrator.token })).status).toBe(404);
  });
});
