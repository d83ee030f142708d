import { usedMs } from "@meridian/domain/observations";
import type { ObservatoryClient } from "@meridian/observatory-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { dispatchJobsDone } from "../support/dispatch-jobs";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { connectQuietPlugin } from "../support/observing-network";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

/**
 * Observations with candidate observatories over REST (contract: "Network scheduling"), with the candidates' plugins
 * connected: the queue and the list of each candidate show one, dispatch assigns it at exactly one of them (its
 * `observatoryId` becomes that one, and null again when it returns to pending), and its history says it once.
 */

const ADMIN = { email: "observation-candidates-admin@example.com", password: "observation candidates admin password" };
const target = { name: "Vega", ra: 279.23, dec: 38.78, exposures: [{ filter: "V", exposureSeconds: 1, count: 1, binning: 1 }] };

let server: TestServer;
const closers: Array<() => Promise<unknown>> = [];
const { must } = jsonApi(() => server);

beforeAll(async () => {
  ({ server } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all" }));
});
afterAll(async () => {
  for (const close of closers) await close().catch(() => undefined);
  await server?.stop();
});

interface Observation {
  id: string;
  status: string;
  observatoryId: string | null;
  candidateObservatoryIds: string[];
}

/** An owner with `count` observatories (no location: no darkness rule) and a project, and a key for each observatory. */
async function network(count: number) {
  const owner = await createAccount(server);
  const post = (path: string, json: unknown) => must(path, { method: "POST", token: owner.token, json }, 201) as Promise<{ id: string; key: string }>;
  const project = await post("/projects", { name: "Network" });
  const observatories = [];
  for (let index = 0; index < count; index += 1) {
    const observatory = await post("/observatories", { name: `Site ${index}` });
    observatories.push({ id: observatory.id, key: (await post(`/observatories/${observatory.id}/api-keys`, { name: "plugin" })).key });
  }
  const submit = async (name: string, where: Record<string, unknown>) =>
    (await must(
      "/observations",
      { method: "POST", token: owner.token, json: { name, projectId: project.id, targets: [target], ...where } },
      201,
    )) as Observation;
  return { owner, project, observatories, submit };
}

/** A quiet plugin at the observatory, and the ids of the observations it was sent (`assign`). */
async function plugin(key: string) {
  const client: ObservatoryClient = await connectQuietPlugin(server.url, key);
  closers.push(() => client.close());
  const assigned: string[] = [];
  client.on("assign", (observation: { id: string }) => assigned.push(observation.id));
  return { client, assigned };
}

const read = async (owner: Account, id: string) => (await must(`/observations/${id}`, { token: owner.token }, 200)) as Observation;
const historyOf = async (owner: Account, id: string) =>
  ((await must(`/observations/${id}/history`, { token: owner.token }, 200)) as { items: Array<{ from: string | null; to: string; reason: string | null }> })
    .items;
const online = async (owner: Account, observatoryId: string) =>
  ((await must(`/observatories/${observatoryId}`, { token: owner.token }, 200)) as { connection: { online: boolean } }).connection.online;

describe("observations with candidates", () => {
  it("REST refuses both observatoryId and candidateObservatoryIds with 400 VALIDATION_FAILED", async () => {
    const { owner, project, observatories } = await network(2);
    const [a, b] = observatories.map((observatory) => observatory.id);
    const response = await server.request("/observations", {
      method: "POST",
      token: owner.token,
      json: { name: "Both", projectId: project.id, targets: [target], observatoryId: a, candidateObservatoryIds: [a, b] },
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toContain("application/problem+json");
    const problem = (await response.json()) as { code: string; errors: Array<{ path: string; message: string }> };
    expect(problem.code).toBe("VALIDATION_FAILED");
    // Refused as naming both, not as an unknown field.
    expect(problem.errors.find((error) => error.path === "candidateObservatoryIds")?.message).toMatch(/together with observatoryId/);
  });

  it("waits in the queue and the list of each candidate while their plugins are away", async () => {
    const { owner, observatories, submit } = await network(3);
    const [a, b, c] = observatories.map((observatory) => observatory.id);
    const waiting = await submit("Queued at both", { candidateObservatoryIds: [a, b] });
    expect(waiting).toMatchObject({ status: "pending", observatoryId: null, candidateObservatoryIds: [a, b] });
    for (const observatoryId of [a, b]) {
      const queue = (await must(`/observatories/${observatoryId}/queue`, { token: owner.token }, 200)) as {
        items: Array<{ observation: { id: string }; eligible: boolean; reasons: Array<{ code: string }> }>;
      };
      const item = queue.items.find((each) => each.observation.id === waiting.id);
      expect(item, `the queue of ${observatoryId}`).toMatchObject({ eligible: false });
      expect(item!.reasons.map((reason) => reason.code)).toContain("OFFLINE");
      const listed = (await must(`/observations?observatoryId=${observatoryId}`, { token: owner.token }, 200)) as { items: Array<{ id: string }> };
      expect(listed.items.map((each) => each.id)).toContain(waiting.id);
    }
    const queueC = (await must(`/observatories/${c}/queue`, { token: owner.token }, 200)) as { items: Array<{ observation: { id: string } }> };
    expect(queueC.items.map((item) => item.observation.id)).not.toContain(waiting.id);
    const listedC = (await must(`/observations?observatoryId=${c}`, { token: owner.token }, 200)) as { items: Array<{ id: string }> };
    expect(listedC.items.map((each) => each.id)).not.toContain(waiting.id);
  });

  it("is assigned at exactly one of two free candidates, never both; its observatoryId goes from null to that one and stays while it is away", async () => {
    const { owner, observatories, submit } = await network(2);
    const [a, b] = observatories.map((observatory) => observatory.id);
    const plugins = new Map([
      [a, await plugin(observatories[0]!.key)],
      [b, await plugin(observatories[1]!.key)],
    ]);
    await dispatchJobsDone(server);

    // Two of them: each observatory takes one at a time, so both are assigned, each at one observatory and once.
    const first = await submit("First", { candidateObservatoryIds: [a, b] });
    const second = await submit("Second", { candidateObservatoryIds: [b, a] });
    for (const submitted of [first, second]) expect(submitted).toMatchObject({ status: "pending", observatoryId: null });
    await until("both assigned", async () => (await read(owner, first.id)).status === "assigned" && (await read(owner, second.id)).status === "assigned");
    await dispatchJobsDone(server);
    const [one, two] = [await read(owner, first.id), await read(owner, second.id)];
    expect([a, b]).toContain(one.observatoryId);
    expect([a, b]).toContain(two.observatoryId);
    expect(one.observatoryId).not.toBe(two.observatoryId);
    await until(
      "each plugin told of its own",
      async () => plugins.get(one.observatoryId!)!.assigned.includes(one.id) && plugins.get(two.observatoryId!)!.assigned.includes(two.id),
    );
    expect(plugins.get(one.observatoryId!)!.assigned).toEqual([one.id]);
    expect(plugins.get(two.observatoryId!)!.assigned).toEqual([two.id]);
    for (const observation of [one, two]) expect((await historyOf(owner, observation.id)).filter((entry) => entry.to === "assigned")).toHaveLength(1);

    // Its observatory goes away: with other candidates it keeps the assignment for a plugin back within
    // REASSIGN_AFTER_MINUTES (then the failover moves it back to pending, at none: observation-failover.test.ts).
    await plugins.get(one.observatoryId!)!.client.close();
    await until("its observatory offline", async () => !(await online(owner, one.observatoryId!)));
    await dispatchJobsDone(server);
    expect(await read(owner, one.id)).toMatchObject({ status: "assigned", observatoryId: one.observatoryId, candidateObservatoryIds: [a, b] });
    expect((await historyOf(owner, one.id)).filter((entry) => entry.to === "assigned")).toHaveLength(1);
  });

  it("runs where the network plan puts it; a free candidate it is not planned at holds it (PLANNED_ELSEWHERE)", async () => {
    const { owner, observatories, submit } = await network(2);
    const [a, b] = observatories.map((observatory) => observatory.id) as [string, string];
    // No plugin yet: both observatories were created a moment ago, so both are planned as if connected (contract: "Network
    // scheduling"); a's plugin connects once the plan has placed it.
    const waiting = await submit("Planned at one", { candidateObservatoryIds: [b, a] });
    const plan = async () =>
      (await must(`/network/plan?observatoryIds=${a},${b}`, { token: owner.token }, 200)) as { slots: Array<{ observationId: string; observatoryId: string }> };
    const slot = await until("the plan to run it", async () => (await plan()).slots.find((each) => each.observationId === waiting.id));
    const [there, elsewhere] = slot.observatoryId === a ? [a, b] : [b, a];
    const atA = await plugin(observatories[0]!.key);
    await until("a online", () => online(owner, a));
    await dispatchJobsDone(server);
    if (there === b) {
      // a is free and it is eligible there, yet a holds it for the plan: it waits for b.
      const queue = (await must(`/observatories/${a}/queue`, { token: owner.token }, 200)) as {
        items: Array<{ observation: { id: string }; blockedBy: { code: string; observatoryId?: string } | null }>;
      };
      expect(queue.items.find((item) => item.observation.id === waiting.id)?.blockedBy).toMatchObject({ code: "PLANNED_ELSEWHERE", observatoryId: b });
      expect(await read(owner, waiting.id)).toMatchObject({ status: "pending", observatoryId: null });
      expect(atA.assigned).not.toContain(waiting.id);
    } else {
      await until("assigned where the plan runs it", async () => (await read(owner, waiting.id)).observatoryId === there);
      expect(elsewhere).toBe(b);
    }
  });

  it("a run's history, files and allocated time follow the observatory it ran at, after it waits at none again", async () => {
    const { owner, project, observatories, submit } = await network(2);
    const [a, b] = observatories.map((observatory) => observatory.id);
    const atA = await plugin(observatories[0]!.key);
    await dispatchJobsDone(server);
    const repeating = await submit("Repeating", { candidateObservatoryIds: [b, a], type: "monitoring", monitoring: { intervalMinutes: 60 } });
    await until("assigned at a", async () => atA.assigned.includes(repeating.id));
    expect(await read(owner, repeating.id)).toMatchObject({ status: "assigned", observatoryId: a });

    await atA.client.reportStatus(repeating.id, "in_progress");
    await atA.client.uploadFile({ observationId: repeating.id, filename: "run-1.txt", contentType: "text/plain", body: new TextEncoder().encode("one") });
    await atA.client.reportStatus(repeating.id, "acquisition_complete");
    await atA.client.reportStatus(repeating.id, "completed");
    // A monitoring run ends and it waits for its next: at none of its candidates.
    await until("waiting again", async () => (await read(owner, repeating.id)).status === "pending");
    expect(await read(owner, repeating.id)).toMatchObject({ observatoryId: null, candidateObservatoryIds: [b, a] });

    const files = (await must(`/observations/${repeating.id}/files`, { token: owner.token }, 200)) as { items: Array<{ filename: string }> };
    expect(files.items.map((file) => file.filename)).toEqual(["run-1.txt"]);
    const moves = (await historyOf(owner, repeating.id)).map((entry) => entry.to);
    expect(moves).toEqual(["pending", "assigned", "in_progress", "acquisition_complete", "completed", "pending"]);
    const period = { projectId: project.id, from: new Date(0), to: new Date("9999-01-01T00:00:00Z"), now: new Date() };
    const { db } = server.server.runtime.deps;
    expect(await usedMs({ db, observatoryId: a!, ...period })).toBeGreaterThan(0);
    expect(await usedMs({ db, observatoryId: b!, ...period })).toBe(0);
  });
});
