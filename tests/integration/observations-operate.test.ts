import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, describeAuthSuite, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { observingNetwork } from "../support/observing-network";
import { holdRows } from "../support/table-hold";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

type Seven = [Account, Account, Account, Account, Account, Account, Account];
const ADMIN = { email: "observations-operate-admin@example.com", password: "observations operate admin password" };
let server: TestServer;
let owner: Account;
/** Project member with can_observe: may clone, may not pause what is not theirs. */
let observer: Account;
/** Project member with can_view only. */
let viewer: Account;
/** Project member who cannot see the observatory. */
let member: Account;
/** can_observe on the observatory, outside the project. */
let outsider: Account;
/** can_operate on the observatory, outside the project. */
let operator: Account;
let stranger: Account;
let observatoryId: string;
let projectId: string;
beforeAll(async () => {
  // No worker: nothing is dispatched behind the tests' backs.
  ({ server } = await startServerWithAdmin(ADMIN));
  [owner, observer, viewer, member, outsider, operator, stranger] = (await Promise.all(Array.from({ length: 7 }, () => createAccount(server)))) as Seven;
  observatoryId = ((await must("/observatories", { method: "POST", token: owner.token, json: { name: "Operated scope" } }, 201)) as { id: string }).id;
  projectId = ((await must("/projects", { method: "POST", token: owner.token, json: { name: "Operated survey" } }, 201)) as { id: string }).id;
  for (const account of [observer, viewer, member])
    await must(`/projects/${projectId}/members`, { method: "POST", token: owner.token, json: { email: account.email, role: "member" } }, 201);
  const grants: Array<[Account, Record<string, boolean>]> = [
    [observer, { can_observe: true }],
    [viewer, { can_view: true }],
    [outsider, { can_observe: true }],
    [operator, { can_operate: true }],
  ];
  for (const [account, permissions] of grants)
    await must(`/observatories/${observatoryId}/members`, { method: "POST", token: owner.token, json: { email: account.email, permissions } }, 201);
});
afterAll(() => server?.stop());
const { must, call } = jsonApi(() => server);

interface Observation {
  id: string;
  name: string;
  status: string;
  statusReason: string | null;
  priority: number;
  ownerId: string;
  projectId: string;
  observatoryId: string;
  type: string;
  targets: unknown[];
  constraints: unknown;
  notifications: unknown;
  fixedTimeStart: string | null;
  fixedTimeEnd: string | null;
  bypassDarkness: boolean;
}
type History = { items: Array<{ from: string | null; to: string; actor: { kind: string; id: string }; reason: string | null }> };

const target = { name: "Altair", ra: 297.7, dec: 8.87, exposures: [{ filter: "R", exposureSeconds: 20, count: 3, binning: 2 }] };
const submit = async (fields: Record<string, unknown> = {}, token = owner.token) =>
  (await must(
    "/observations",
    { method: "POST", token, json: { name: `Obs ${randomUUID().slice(0, 6)}`, projectId, observatoryId, targets: [target], ...fields } },
    201,
  )) as Observation;
const post = (path: string, token: string | undefined, json?: unknown) => server.request(path, { method: "POST", token, json });
const statusOf = async (id: string) => ((await must(`/observations/${id}`, { token: owner.token }, 200)) as Observation).status;
const historyOf = async (id: string, token = owner.token) => (await must(`/observations/${id}/history`, { token }, 200)) as History;

/** An observatory, project and pending observation of the account's own: what the auth suite acts on. */
async function ownObservation(account: Account, token: string) {
  const json = (body: unknown) => ({ method: "POST", token, json: body });
  const scope = (await must("/observatories", json({ name: `Own ${randomUUID().slice(0, 6)}` }), 201)) as { id: string };
  const project = (await must("/projects", json({ name: `Own ${randomUUID().slice(0, 6)}` }), 201)) as { id: string };
  return (await must("/observations", json({ name: "Own", projectId: project.id, observatoryId: scope.id, targets: [target] }), 201)) as Observation;
}

describeAuthSuite(() => server, {
  method: "POST",
  path: "/observations/{id}/pause",
  prepare: async (_server, account, token) => ({ path: `/observations/${(await ownObservation(account, token)).id}/pause` }),
  success: 200,
});
describeAuthSuite(() => server, {
  method: "POST",
  path: "/observations/{id}/resume",
  prepare: async (_server, account, token) => {
    const observation = await ownObservation(account, token);
    await must(`/observations/${observation.id}/pause`, { method: "POST", token }, 200);
    return { path: `/observations/${observation.id}/resume` };
  },
  success: 200,
});
describeAuthSuite(() => server, {
  method: "POST",
  path: "/observations/{id}/clone",
  prepare: async (_server, account, token) => ({ path: `/observations/${(await ownObservation(account, token)).id}/clone`, json: { priority: 7 } }),
  success: 201,
});

describe("POST /observations/{id}/pause and /resume", () => {
  it("pause a pending observation and resume it, each move recorded with who made it and why", async () => {
    const created = await submit();
    const paused = (await must(
      `/observations/${created.id}/pause`,
      { method: "POST", token: owner.token, json: { reason: "Clouds tonight" } },
      200,
    )) as Observation;
    expect(paused).toMatchObject({ id: created.id, status: "paused", statusReason: "Clouds tonight" });
    const resumed = (await must(`/observations/${created.id}/resume`, { method: "POST", token: owner.token }, 200)) as Observation;
    expect(resumed).toMatchObject({ status: "pending", statusReason: null });
    const history = await historyOf(created.id);
    expect(history.items.map((entry) => [entry.from, entry.to, entry.actor.id, entry.reason])).toEqual([
      [null, "pending", owner.id, null],
      ["pending", "paused", owner.id, "Clouds tonight"],
      ["paused", "pending", owner.id, null],
    ]);
  });

  it("let an operator of the observatory act on another's observation", async () => {
    const created = await submit();
    expect(await must(`/observations/${created.id}/pause`, { method: "POST", token: operator.token }, 200)).toMatchObject({ status: "paused" });
    expect(await must(`/observations/${created.id}/resume`, { method: "POST", token: operator.token }, 200)).toMatchObject({ status: "pending" });
    expect((await historyOf(created.id)).items.at(-1)).toMatchObject({ actor: { kind: "user", id: operator.id } });
  });

  it("refuse readers who neither own it nor operate (403) and those who cannot read it (404), changing nothing", async () => {
    const created = await submit();
    for (const action of ["pause", "resume"]) {
      for (const reader of [observer, viewer, member]) await expectProblem(await post(`/observations/${created.id}/${action}`, reader.token), 403, "FORBIDDEN");
      await expectProblem(await post(`/observations/${created.id}/${action}`, stranger.token), 404, "NOT_FOUND");
      await expectProblem(await post(`/observations/obs_${randomUUID()}/${action}`, owner.token), 404, "NOT_FOUND");
    }
    expect(await statusOf(created.id)).toBe("pending");
    expect((await historyOf(created.id)).items).toHaveLength(1);
  });

  it("answer 409 INVALID_TRANSITION from any status but the one each starts from", async () => {
    const created = await submit();
    await expectProblem(await post(`/observations/${created.id}/resume`, owner.token), 409, "INVALID_TRANSITION");
    await must(`/observations/${created.id}/pause`, { method: "POST", token: owner.token }, 200);
    await expectProblem(await post(`/observations/${created.id}/pause`, owner.token), 409, "INVALID_TRANSITION");
    await must(`/observations/${created.id}/resume`, { method: "POST", token: owner.token }, 200);
    // The table lets an assigned observation go back to pending; that is the connection's move, not a resume.
    await must(`/observations/${created.id}/status`, { method: "POST", token: owner.token, json: { status: "assigned" } }, 200);
    await expectProblem(await post(`/observations/${created.id}/resume`, owner.token), 409, "INVALID_TRANSITION");
    await expectProblem(await post(`/observations/${created.id}/pause`, owner.token), 409, "INVALID_TRANSITION");
    await must(`/observations/${created.id}/cancel`, { method: "POST", token: owner.token }, 200);
    await expectProblem(await post(`/observations/${created.id}/pause`, owner.token), 409, "INVALID_TRANSITION");
    expect(await statusOf(created.id)).toBe("cancelled");
  });

  it("refuse a body that is not the optional reason (400), and check credentials before the body (401)", async () => {
    const created = await submit();
    const problem = await expectProblem(await post(`/observations/${created.id}/pause`, owner.token, { reason: "x", until: "dawn" }), 400, "VALIDATION_FAILED");
    expect(problem.errors?.map((error) => error.path)).toContain("until");
    await expectProblem(await post(`/observations/${created.id}/pause`, owner.token, { reason: "   " }), 400, "VALIDATION_FAILED");
    await expectProblem(
      await server.request(`/observations/${created.id}/pause`, {
        method: "POST",
        token: owner.token,
        body: "{not json",
        headers: { "content-type": "application/json" },
      }),
      400,
      "VALIDATION_FAILED",
    );
    await expectProblem(await post(`/observations/${created.id}/pause`, undefined, { until: "dawn" }), 401, "UNAUTHENTICATED");
    expect(await statusOf(created.id)).toBe("pending");
  });
});

describe("POST /observations/{id}/clone", () => {
  it("makes a new pending observation with the same fields, owned by the caller, its history saying where it came from", async () => {
    const source = await submit({
      priority: 8,
      type: "time_based",
      fixedTimeEnd: "2099-01-01T00:00:00.000Z",
      bypassDarkness: true,
      constraints: { minAltitude: 40, maxAirmass: 2, moonDistance: 30, twilight: "nautical" },
      notifications: { email: false, push: true, states: ["completed"] },
    });
    await must(`/observations/${source.id}/cancel`, { method: "POST", token: owner.token }, 200);
    const clone = (await must(`/observations/${source.id}/clone`, { method: "POST", token: observer.token }, 201)) as Observation;
    expect(clone.id).not.toBe(source.id);
    const same = (observation: Observation) => {
      const {
        name,
        projectId: project,
        observatoryId: scope,
        type,
        priority,
        targets,
        constraints,
        notifications,
        fixedTimeStart,
        fixedTimeEnd,
        bypassDarkness,
      } = observation;
      return { name, project, scope, type, priority, targets, constraints, notifications, fixedTimeStart, fixedTimeEnd, bypassDarkness };
    };
    expect(same(clone)).toEqual(same(source));
    expect(clone).toMatchObject({ status: "pending", statusReason: null, ownerId: observer.id });
    expect((await historyOf(clone.id, observer.token)).items).toEqual([
      expect.objectContaining({
        from: null,
        to: "pending",
        actor: expect.objectContaining({ kind: "user", id: observer.id }),
        reason: `cloned from ${source.id}`,
        clonedFromId: source.id,
      }),
    ]);
    expect(await statusOf(source.id)).toBe("cancelled");
  });

  it("takes overrides as PUT does, and ?priority", async () => {
    const source = await submit({ priority: 4 });
    const renamed = (await must(
      `/observations/${source.id}/clone`,
      {
        method: "POST",
        token: owner.token,
        json: { name: "Second look", constraints: { minAltitude: 50, maxAirmass: null, moonDistance: null, twilight: "civil" } },
      },
      201,
    )) as Observation;
    expect(renamed).toMatchObject({ name: "Second look", priority: 4, constraints: { minAltitude: 50, twilight: "civil" } });
    const urgent = (await must(`/observations/${source.id}/clone?priority=10`, { method: "POST", token: owner.token }, 201)) as Observation;
    expect(urgent).toMatchObject({ name: source.name, priority: 10 });
    const both = await post(`/observations/${source.id}/clone?priority=9`, owner.token, { priority: 2 });
    expect((await expectProblem(both, 400, "VALIDATION_FAILED")).errors?.map((error) => error.path)).toEqual(["priority"]);
    await expectProblem(await post(`/observations/${source.id}/clone?priority=11`, owner.token), 400, "VALIDATION_FAILED");
    await expectProblem(await post(`/observations/${source.id}/clone?priority=high`, owner.token), 400, "VALIDATION_FAILED");
    const unknown = await expectProblem(await post(`/observations/${source.id}/clone`, owner.token, { projectId }), 400, "VALIDATION_FAILED");
    expect(unknown.errors?.map((error) => error.path)).toEqual(["projectId"]);
  });

  it("refuses a clone whose window is invalid or has closed (400)", async () => {
    const fixed = await submit({ type: "fixed_time", fixedTimeStart: "2099-01-01T00:00:00.000Z", fixedTimeEnd: "2099-01-02T00:00:00.000Z" });
    const disordered = await post(`/observations/${fixed.id}/clone`, owner.token, { fixedTimeEnd: "2098-12-31T00:00:00.000Z" });
    expect((await expectProblem(disordered, 400, "VALIDATION_FAILED")).errors?.map((error) => error.path)).toEqual(["fixedTimeEnd"]);
    const startless = await post(`/observations/${fixed.id}/clone`, owner.token, { fixedTimeStart: null });
    expect((await expectProblem(startless, 400, "VALIDATION_FAILED")).errors?.map((error) => error.path)).toEqual(["fixedTimeStart"]);
    const closed = await post(`/observations/${fixed.id}/clone`, owner.token, {
      fixedTimeStart: "2020-01-01T00:00:00.000Z",
      fixedTimeEnd: "2020-01-02T00:00:00.000Z",
    });
    expect((await expectProblem(closed, 400, "VALIDATION_FAILED")).errors?.map((error) => error.path)).toEqual(["fixedTimeEnd"]);
  });

  it("needs can_observe and project membership (403), a readable observation (404) and an active project (409)", async () => {
    const source = await submit();
    const before = ((await must(`/observations?projectId=${projectId}&limit=200`, { token: owner.token }, 200)) as { items: unknown[] }).items.length;
    // Readers who could not create it: a viewer, a project member who cannot see the observatory, observers outside the project.
    for (const reader of [viewer, member, outsider, operator])
      await expectProblem(await post(`/observations/${source.id}/clone`, reader.token), 403, "FORBIDDEN");
    await expectProblem(await post(`/observations/${source.id}/clone`, stranger.token), 404, "NOT_FOUND");
    await expectProblem(await post(`/observations/obs_${randomUUID()}/clone`, owner.token), 404, "NOT_FOUND");
    await expectProblem(await post(`/observations/${source.id}/clone`, undefined, { colour: "blue" }), 401, "UNAUTHENTICATED");
    const after = ((await must(`/observations?projectId=${projectId}&limit=200`, { token: owner.token }, 200)) as { items: unknown[] }).items.length;
    expect(after).toBe(before);

    const paused = (await must("/projects", { method: "POST", token: owner.token, json: { name: "Paused for cloning" } }, 201)) as { id: string };
    const inPaused = await submit({ projectId: paused.id });
    await must(`/projects/${paused.id}`, { method: "PUT", token: owner.token, json: { status: "paused" } }, 200);
    await expectProblem(await post(`/observations/${inPaused.id}/clone`, owner.token), 409, "PROJECT_NOT_ACTIVE");
    const status = await call(`/observations/${inPaused.id}`, { token: owner.token });
    expect(status.body).toMatchObject({ status: "pending" });
  });

  it("judges the project's status again under its lock: a project archived while the clone was under way is 409", async () => {
    const network = await observingNetwork(must, owner);
    const source = await submit({ projectId: network.project.id, observatoryId: network.observatory.id });
    // Parks the clone after its checks (the project, still active), at its hold on the observatory.
    const hold = await holdRows(server.databaseUrl, `select id from observatories where id = '${network.observatory.id}' for update`);
    try {
      const clone = post(`/observations/${source.id}/clone`, owner.token);
      await until("the clone to wait at the observatory", async () => (await hold.waiters()) >= 1, { intervalMs: 5 });
      await must(`/projects/${network.project.id}`, { method: "PUT", token: owner.token, json: { status: "archived" } }, 200);
      await hold.release();
      await expectProblem(await clone, 409, "PROJECT_NOT_ACTIVE");
    } finally {
      await hold.release();
    }
    const inProject = (await must(`/observations?projectId=${network.project.id}&limit=10`, { token: owner.token }, 200)) as { items: Observation[] };
    expect(inProject.items.map((observation) => observation.id)).toEqual([source.id]);
  });
});
