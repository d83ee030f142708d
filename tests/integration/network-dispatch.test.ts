import type { ObservatoryClient } from "@meridian/observatory-client";
import { dispatchObservatory } from "@meridian/domain/observations";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../support/auth-suite";
import { dispatchJobsDone } from "../support/dispatch-jobs";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { connectQuietPlugin, observingNetwork } from "../support/observing-network";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

/**
 * Dispatch follows the network plan (issue 60, point 3): a free observatory is not given what the plan
 * starts later there, and the queue says so with PLANNED_LATER. The plan beats dispatch's greedy pass
 * here: taking the eligible observation now would make the one with a window that opens soon miss it.
 */
const ADMIN = { email: "network-dispatch-admin@example.com", password: "network dispatch admin password" };
const MINUTE = 60_000;

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

interface Plan {
  slots: Array<{ observationId: string; observatoryId: string; start: string; end: string }>;
}
interface QueueItem {
  observation: { id: string; status: string };
  eligible: boolean;
  blockedBy: { code: string; until: string | null; observatoryId?: string } | null;
}

const exposure = (seconds: number) => [{ name: "Vega", ra: 279.23, dec: 38.78, exposures: [{ filter: "V", exposureSeconds: seconds, count: 1, binning: 1 }] }];
const slotOf = (plan: Plan, observationId: string) => plan.slots.find((slot) => slot.observationId === observationId);

/** Half an hour at priority 9 that must run within a window opening in ten minutes and closing in fifty. */
const submitWindowed = (options: { token: string; projectId: string; observatoryId: string; name: string }) =>
  must(
    "/observations",
    {
      method: "POST",
      token: options.token,
      json: {
        name: options.name,
        projectId: options.projectId,
        observatoryId: options.observatoryId,
        priority: 9,
        type: "time_based",
        fixedTimeStart: new Date(Date.now() + 10 * MINUTE).toISOString(),
        fixedTimeEnd: new Date(Date.now() + 50 * MINUTE).toISOString(),
        targets: exposure(1_800),
      },
    },
    201,
  ) as Promise<{ id: string }>;

describe("dispatch following the network plan", () => {
  it("holds an eligible observation the plan starts later, so that one whose window opens soon makes it", async () => {
    const owner = await createAccount(server);
    const { observatory, project, key } = await observingNetwork(must, owner);
    const plugin: ObservatoryClient = await connectQuietPlugin(server.url, key.key);
    closers.push(() => plugin.close());
    const assigned: string[] = [];
    plugin.on("assign", (observation: { id: string }) => assigned.push(observation.id));
    await dispatchJobsDone(server);
    const planOf = () => must(`/network/plan?observatoryIds=${observatory.id}`, { token: owner.token }, 200) as Promise<Plan>;

    // Half an hour that must run within a window opening in ten minutes and closing in fifty.
    const windowed = await submitWindowed({ token: owner.token, projectId: project.id, observatoryId: observatory.id, name: "Windowed" });
    await until("the plan to run the windowed observation", async () => slotOf(await planOf(), windowed.id));

    // Eligible now for 25 minutes: dispatch alone would start it at once, and the windowed one would then miss its window.
    const flexible = (await must(
      "/observations",
      {
        method: "POST",
        token: owner.token,
        json: { name: "Flexible", projectId: project.id, observatoryId: observatory.id, priority: 5, targets: exposure(1_500) },
      },
      201,
    )) as { id: string };
    const plan = await until("the plan to run both", async () => {
      const read = await planOf();
      return slotOf(read, flexible.id) && slotOf(read, windowed.id) ? read : undefined;
    });
    const [first, second] = [slotOf(plan, windowed.id)!, slotOf(plan, flexible.id)!];
    expect(Date.parse(second.start)).toBeGreaterThanOrEqual(Date.parse(first.end));

    await dispatchJobsDone(server);
    expect(await dispatchObservatory({ deps: server.server.runtime.deps, observatoryId: observatory.id })).toBeNull();
    const queue = (await must(`/observatories/${observatory.id}/queue`, { token: owner.token }, 200)) as { items: QueueItem[] };
    const held = queue.items.find((item) => item.observation.id === flexible.id)!;
    expect(held).toMatchObject({ eligible: false, blockedBy: { code: "PLANNED_LATER", until: second.start } });
    expect(held.observation.status).toBe("pending");
    expect(queue.items.find((item) => item.observation.id === windowed.id)!.blockedBy!.code).toBe("BEFORE_WINDOW");
    expect(assigned).toEqual([]);
  });

  it("holds an observation with candidates that the plan runs at another of them, with PLANNED_ELSEWHERE", async () => {
    const owner = await createAccount(server);
    const { observatory, project, key } = await observingNetwork(must, owner);
    // Never connected, the second counts as available to the plan.
    const elsewhere = (await must("/observatories", { method: "POST", token: owner.token, json: { name: "Elsewhere" } }, 201)) as { id: string };
    const plugin: ObservatoryClient = await connectQuietPlugin(server.url, key.key);
    closers.push(() => plugin.close());
    const assigned: string[] = [];
    plugin.on("assign", (observation: { id: string }) => assigned.push(observation.id));
    await dispatchJobsDone(server);
    const planOf = () => must(`/network/plan?observatoryIds=${observatory.id},${elsewhere.id}`, { token: owner.token }, 200) as Promise<Plan>;

    // The first observatory is kept for a window opening in ten minutes: 25 minutes started now there would make it miss it.
    const now = Date.now();
    const windowed = await submitWindowed({ token: owner.token, projectId: project.id, observatoryId: observatory.id, name: "Windowed here" });
    await until("the plan to run the windowed observation", async () => slotOf(await planOf(), windowed.id));
    const either = (await must(
      "/observations",
      {
        method: "POST",
        token: owner.token,
        json: {
          name: "Either",
          projectId: project.id,
          candidateObservatoryIds: [observatory.id, elsewhere.id],
          priority: 5,
          // Within forty minutes: not after the windowed one there.
          type: "time_based",
          fixedTimeStart: new Date(now).toISOString(),
          fixedTimeEnd: new Date(now + 40 * MINUTE).toISOString(),
          targets: exposure(1_500),
        },
      },
      201,
    )) as { id: string };
    const slot = await until("the plan to run it at the other observatory", async () => {
      const read = await planOf();
      return slotOf(read, windowed.id) ? slotOf(read, either.id) : undefined;
    });
    expect(slot.observatoryId).toBe(elsewhere.id);

    await dispatchJobsDone(server);
    expect(await dispatchObservatory({ deps: server.server.runtime.deps, observatoryId: observatory.id })).toBeNull();
    const queue = (await must(`/observatories/${observatory.id}/queue`, { token: owner.token }, 200)) as { items: QueueItem[] };
    const held = queue.items.find((item) => item.observation.id === either.id)!;
    expect(held).toMatchObject({ eligible: false, blockedBy: { code: "PLANNED_ELSEWHERE", until: slot.start, observatoryId: elsewhere.id } });
    expect(assigned).toEqual([]);
  });
});
