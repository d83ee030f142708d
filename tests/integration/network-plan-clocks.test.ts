import { randomUUID } from "node:crypto";
import { jobRegistry } from "@meridian/domain/job-registry";
import { dispatchObservatory } from "@meridian/domain/observations";
import { claimObservatoryConnection, observatoryHello } from "@meridian/domain/observatories";
import { readNetworkPlan } from "@meridian/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { controlServerClock, type TestClock } from "../support/test-clock";
import { createObservatoryAs, startTestRuntime, type CallerAccount, type TestRuntime } from "../support/test-runtime";

/**
 * Issue 60: the network plan and the dispatch that follows it read time from one clock, the server's. Whether the plan has
 * seen an observation as it is now does not compare the row's time (the database's clock) with the plan's (the server's):
 * the plan records the row version it read. Here the server's clock stands first a year behind the database's, then
 * ten days ahead of it (a cluster's skew, exaggerated); no worker runs, and each test makes the plan and dispatches itself.
 *
 * In each, an observatory without a location (the window and the allocation alone decide) and a project with an hour
 * there: the plan keeps it for 48.5 minutes of work worth more from half an hour on, and leaves out 22.7 minutes of work
 * worth less (ALLOCATION_EXHAUSTED), which would otherwise fill the half hour before.
 */
const MINUTE = 60_000;
const LA_PALMA = { latitude: 28.7606, longitude: -17.8792, elevation: 2396 };
/** A moment on the plan's five-minute steps, at or after `ms`: the planned starts below fall on the steps. */
const onStep = (ms: number) => Math.ceil(ms / (5 * MINUTE)) * 5 * MINUTE;
const attempt = { job: { attempts: 1, max_attempts: 1 }, logger: { debug: () => undefined, info: () => undefined } };
const target = (name: string, ra: number, dec: number, count: number) => ({
  name,
  ra,
  dec,
  exposures: [{ filter: "L", exposureSeconds: 300, count, binning: 1 }],
});

let runtime: TestRuntime;
let clock: TestClock;
let owner: CallerAccount;

beforeAll(async () => {
  runtime = await startTestRuntime({ env: { PLAN_HORIZON_HOURS: "6" } });
  // A year behind the database's clock, which stamps the rows' created_at and updated_at.
  clock = controlServerClock(runtime, onStep(Date.now() - 365 * 24 * 60 * MINUTE));
});
afterAll(async () => {
  await runtime?.stop();
});

/** The observatory (connected, its plugin current), the project's hour there, and the two observations, at the clock's time. */
async function allocatedNetwork() {
  const { deps } = runtime;
  const from = clock.now();
  // Signed up at the clock's time: a session made before the clock moved a year would have expired.
  owner = await runtime.signup();
  const observatoryId = (await createObservatoryAs(owner, "Allocated")).id;
  const connectionId = randomUUID();
  expect(await claimObservatoryConnection({ deps, observatoryId, connectionId })).toBe(true);
  await observatoryHello({ deps, observatoryId, connectionId, pluginVersion: "4.0.0.0" });
  const projectId = (await owner.caller.projects.create({ name: `Allocated ${randomUUID().slice(0, 6)}` })).id;
  await owner.caller.observatories.putAllocation({ id: observatoryId, projectId, hours: 1, periodStart: new Date(from).toISOString() });
  const later = await owner.caller.observations.create({
    name: "Worth more, later",
    projectId,
    observatoryId,
    priority: 9,
    type: "time_based",
    fixedTimeStart: new Date(from + 30 * MINUTE).toISOString(),
    fixedTimeEnd: new Date(from + 180 * MINUTE).toISOString(),
    targets: [target("Vega", 279.23, 38.78, 9)],
  });
  const now = await owner.caller.observations.create({
    name: "Worth less, now",
    projectId,
    observatoryId,
    priority: 3,
    targets: [target("Deneb", 310.36, 45.28, 4)],
  });
  await jobRegistry.network_plan.run({}, { deps, attempt });
  const plan = await readNetworkPlan(deps.db);
  // The plan's decision, which dispatch follows: the later work at its window, the other left out for the allocation.
  expect(plan?.slots.map((slot) => [slot.observationId, Date.parse(slot.start) - from])).toEqual([[later.id, 30 * MINUTE]]);
  expect(plan?.unscheduled.find((item) => item.observationId === now.id)?.reasons).toEqual([
    expect.objectContaining({ observatoryId, code: "ALLOCATION_EXHAUSTED" }),
  ]);
  return { observatoryId, later, now };
}

const queueOf = async (observatoryId: string) => {
  const { items } = await owner.caller.observatories.queue({ id: observatoryId });
  return new Map(items.map((item) => [item.observation.name, item]));
};

describe("the network plan and dispatch on the server's clock", () => {
  it("holds what the plan left out as it read it, though the plan's time is before the row's by the database's clock", async () => {
    const { observatoryId } = await allocatedNetwork();
    // Filling the half hour with it would spend what the later work needs: it waits with the plan's reason.
    expect((await queueOf(observatoryId)).get("Worth less, now")).toMatchObject({ eligible: false, blockedBy: { code: "ALLOCATION_EXHAUSTED" } });
    expect(await dispatchObservatory({ deps: runtime.deps, observatoryId })).toBeNull();
  });

  it("lets what the plan left out fill the gap once it changed since the plan, though the plan's time is after the row's", async () => {
    // Ten days ahead of the database's clock.
    clock.set(onStep(Date.now() + 10 * 24 * 60 * MINUTE));
    const { observatoryId, now } = await allocatedNetwork();
    expect((await queueOf(observatoryId)).get("Worth less, now")).toMatchObject({ eligible: false, blockedBy: { code: "ALLOCATION_EXHAUSTED" } });
    // Shortened to one exposure (5.7 minutes): it now fits the allocation and the half hour. The plan has not seen it so,
    // and until it is made again, dispatch lets it fill the gap as one the plan never saw.
    await owner.caller.observations.update({ id: now.id, update: { targets: [target("Deneb", 310.36, 45.28, 1)] } });
    expect((await queueOf(observatoryId)).get("Worth less, now")).toMatchObject({ eligible: true, blockedBy: null });
    expect(await dispatchObservatory({ deps: runtime.deps, observatoryId })).toMatchObject({ id: now.id });
  });

  it("plans the night after what runs at an observatory from its assignment by the server's clock", async () => {
    // Midnight on La Palma, twelve days ahead of the database's clock (and after the tests before).
    clock.set(Date.parse(`${new Date(Date.now() + 12 * 24 * 60 * MINUTE).toISOString().slice(0, 10)}T00:00:00Z`));
    owner = await runtime.signup();
    const { deps } = runtime;
    const observatoryId = (await createObservatoryAs(owner, "La Palma")).id;
    await owner.caller.observatories.update({ id: observatoryId, update: { location: LA_PALMA } });
    const connectionId = randomUUID();
    expect(await claimObservatoryConnection({ deps, observatoryId, connectionId })).toBe(true);
    await observatoryHello({ deps, observatoryId, connectionId, pluginVersion: "4.0.0.0" });
    const projectId = (await owner.caller.projects.create({ name: `Night ${randomUUID().slice(0, 6)}` })).id;
    const running = await owner.caller.observations.create({
      name: "Running",
      projectId,
      observatoryId,
      priority: 5,
      targets: [target("Capella", 79.17, 46.0, 4)],
    });
    if ((await owner.caller.observations.get({ id: running.id })).status !== "assigned")
      expect(await dispatchObservatory({ deps, observatoryId })).toMatchObject({ id: running.id });
    const { estimatedSeconds } = await owner.caller.observations.get({ id: running.id });
    const plan = await owner.caller.observatories.plan({ id: observatoryId });
    // Assigned now by the server's clock: its block starts now and ends when its estimate has passed, not at once.
    expect(plan.slots.find((slot) => slot.observationId === running.id)).toMatchObject({
      start: new Date(clock.now()).toISOString(),
      end: new Date(clock.now() + estimatedSeconds * 1000).toISOString(),
    });
  });
});
