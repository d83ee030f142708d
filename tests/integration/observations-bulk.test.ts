import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeAuthSuite, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { fourAccounts, observingScope } from "../support/observation-cast";
import type { TestServer } from "../support/test-server";

const ADMIN = { email: "observations-bulk-admin@example.com", password: "observations bulk admin password" };
let server: TestServer;
let owner: Account;
/** A project member with can_observe: acts on their own observations, only reads the owner's. */
let observer: Account;
/** can_operate on the observatory. */
let operator: Account;
/** Owns another observatory and project the observer cannot read. */
let elsewhere: Account;
let observatoryId: string;
let projectId: string;
let otherObservatoryId: string;
let otherProjectId: string;
beforeAll(async () => {
  // No worker: nothing is dispatched behind the tests' backs.
  ({ server } = await startServerWithAdmin(ADMIN));
  [owner, observer, operator, elsewhere] = await fourAccounts(server);
  ({ observatoryId, projectId } = await observingScope(server, { owner, observatory: "Bulk scope", project: "Bulk survey", projectMember: observer }));
  for (const [account, permissions] of [
    [observer, { can_observe: true }],
    [operator, { can_operate: true }],
  ] as const)
    await must(`/observatories/${observatoryId}/members`, { method: "POST", token: owner.token, json: { email: account.email, permissions } }, 201);
  otherObservatoryId = ((await must("/observatories", { method: "POST", token: elsewhere.token, json: { name: "Elsewhere" } }, 201)) as { id: string }).id;
  otherProjectId = ((await must("/projects", { method: "POST", token: elsewhere.token, json: { name: "Elsewhere" } }, 201)) as { id: string }).id;
});
afterAll(() => server?.stop());
const { must } = jsonApi(() => server);

interface Observation {
  id: string;
  status: string;
  statusReason: string | null;
  priority: number;
}
interface BulkResult {
  results: Array<{ id: string; ok: boolean; code?: string; detail?: string }>;
}

const target = { name: "Capella", ra: 79.17, dec: 45.99, exposures: [{ filter: "V", exposureSeconds: 5, count: 1, binning: 1 }] };
const submit = async (token = owner.token, where = { projectId, observatoryId }) =>
  (await must("/observations", { method: "POST", token, json: { name: `Obs ${randomUUID().slice(0, 6)}`, ...where, targets: [target] } }, 201)) as Observation;
const bulk = (token: string | undefined, json: unknown) => server.request("/observations/bulk", { method: "POST", token, json });
const bulkOk = async (token: string, json: unknown) => (await must("/observations/bulk", { method: "POST", token, json }, 200)) as BulkResult;
const read = async (id: string) => (await must(`/observations/${id}`, { token: owner.token }, 200)) as Observation;
const historyLength = async (id: string) => ((await must(`/observations/${id}/history`, { token: owner.token }, 200)) as { items: unknown[] }).items.length;

describeAuthSuite(() => server, {
  method: "POST",
  path: "/observations/bulk",
  prepare: async (_server, _account, token) => {
    const scope = (await must("/observatories", { method: "POST", token, json: { name: "Own" } }, 201)) as { id: string };
    const project = (await must("/projects", { method: "POST", token, json: { name: "Own" } }, 201)) as { id: string };
    const own = (await must(
      "/observations",
      { method: "POST", token, json: { name: "Own", projectId: project.id, observatoryId: scope.id, targets: [target] } },
      201,
    )) as {
      id: string;
    };
    return { path: "/observations/bulk", json: { ids: [own.id], action: "set_priority", priority: 6 } };
  },
  success: 200,
});

describe("POST /observations/bulk", () => {
  it("acts on each id as the single operation would, reporting each in the order given", async () => {
    const own = await submit(observer.token);
    const ownersOnly = await submit();
    const unreadable = await submit(elsewhere.token, { projectId: otherProjectId, observatoryId: otherObservatoryId });
    const ended = await submit(observer.token);
    await must(`/observations/${ended.id}/cancel`, { method: "POST", token: observer.token }, 200);
    const missing = `obs_${randomUUID()}`;
    const historyBefore = await historyLength(ownersOnly.id);

    const { results } = await bulkOk(observer.token, {
      ids: [own.id, ownersOnly.id, unreadable.id, missing, ended.id, own.id],
      action: "pause",
      reason: "Haze",
    });
    expect(results.map(({ id, ok, code }) => ({ id, ok, code }))).toEqual([
      { id: own.id, ok: true, code: undefined },
      { id: ownersOnly.id, ok: false, code: "FORBIDDEN" },
      { id: unreadable.id, ok: false, code: "NOT_FOUND" },
      { id: missing, ok: false, code: "NOT_FOUND" },
      { id: ended.id, ok: false, code: "INVALID_TRANSITION" },
    ]);
    // An observation the caller may not read is told apart from one that does not exist by nothing at all.
    const [, , hidden, absent] = results;
    expect(hidden!.detail).toBe(absent!.detail);
    expect(await read(own.id)).toMatchObject({ status: "paused", statusReason: "Haze" });
    expect(await read(ownersOnly.id)).toMatchObject({ status: "pending" });
    expect(await historyLength(ownersOnly.id)).toBe(historyBefore);
    expect(((await must(`/observations/${unreadable.id}`, { token: elsewhere.token }, 200)) as Observation).status).toBe("pending");
    // The repeated id was paused once: one move in its history.
    expect(await historyLength(own.id)).toBe(2);
  });

  it("lets an operator act on everyone's observations at the observatory, and one refusal changes nothing for the others", async () => {
    const [first, second, third] = [await submit(), await submit(observer.token), await submit()];
    await must(`/observations/${second.id}/pause`, { method: "POST", token: observer.token }, 200);
    const paused = await bulkOk(operator.token, { ids: [first.id, second.id, third.id], action: "pause" });
    expect(paused.results.map((result) => result.code ?? "ok")).toEqual(["ok", "INVALID_TRANSITION", "ok"]);
    const resumed = await bulkOk(operator.token, { ids: [first.id, second.id, third.id], action: "resume" });
    expect(resumed.results.every((result) => result.ok)).toBe(true);
    for (const observation of [first, second, third]) expect((await read(observation.id)).status).toBe("pending");
    const cancelled = await bulkOk(operator.token, { ids: [first.id, third.id], action: "cancel", reason: "Mirror recoating" });
    expect(cancelled.results.every((result) => result.ok)).toBe(true);
    expect(await read(third.id)).toMatchObject({ status: "cancelled", statusReason: "Mirror recoating" });
  });

  it("sets the priority by PUT's rules: the owner or can_operate, only while pending or paused", async () => {
    const waiting = await submit(observer.token);
    const paused = await submit(observer.token);
    await must(`/observations/${paused.id}/pause`, { method: "POST", token: observer.token }, 200);
    const running = await submit(observer.token);
    await must(`/observations/${running.id}/status`, { method: "POST", token: operator.token, json: { status: "assigned" } }, 200);
    const ownersOnly = await submit();
    const { results } = await bulkOk(observer.token, { ids: [waiting.id, paused.id, running.id, ownersOnly.id], action: "set_priority", priority: 9 });
    expect(results.map((result) => result.code ?? "ok")).toEqual(["ok", "ok", "INVALID_TRANSITION", "FORBIDDEN"]);
    expect((await read(waiting.id)).priority).toBe(9);
    expect(await read(paused.id)).toMatchObject({ priority: 9, status: "paused" });
    expect((await read(running.id)).priority).toBe(5);
    expect((await read(ownersOnly.id)).priority).toBe(5);
  });

  it("refuses a request that is not one bulk action on 1 to 500 ids (400), after checking credentials (401)", async () => {
    const one = await submit();
    const invalid: Array<[string, unknown, string]> = [
      ["no ids", { ids: [], action: "pause" }, "ids"],
      ["501 ids", { ids: Array.from({ length: 501 }, (_, index) => `obs_${index}`), action: "pause" }, "ids"],
      ["an unknown action", { ids: [one.id], action: "delete" }, "action"],
      ["set_priority without a priority", { ids: [one.id], action: "set_priority" }, "priority"],
      ["a priority out of range", { ids: [one.id], action: "set_priority", priority: 11 }, "priority"],
      ["a priority with another action", { ids: [one.id], action: "pause", priority: 3 }, "priority"],
      ["a reason with set_priority", { ids: [one.id], action: "set_priority", priority: 3, reason: "because" }, "reason"],
      ["an unknown field", { ids: [one.id], action: "pause", everything: true }, "everything"],
    ];
    for (const [, json, path] of invalid) {
      const problem = await expectProblem(await bulk(owner.token, json), 400, "VALIDATION_FAILED");
      expect(problem.errors?.map((error) => error.path)).toContain(path);
    }
    await expectProblem(await bulk(undefined, { ids: [], action: "delete" }), 401, "UNAUTHENTICATED");
    expect(await read(one.id)).toMatchObject({ status: "pending", priority: 5 });
  });

  it("takes 500 ids at once", async () => {
    const mine = await submit(observer.token);
    const ids = [mine.id, ...Array.from({ length: 499 }, (_, index) => `obs_missing_${index}`)];
    const { results } = await bulkOk(observer.token, { ids, action: "set_priority", priority: 2 });
    expect(results).toHaveLength(500);
    expect(results[0]).toEqual({ id: mine.id, ok: true });
    expect(results.slice(1).every((result) => result.code === "NOT_FOUND")).toBe(true);
  });
});
