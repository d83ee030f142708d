import { randomUUID } from "node:crypto";
import { readNetworkPlan, type NetworkPlanDoc } from "@meridian/db";
import { jobRegistry } from "@meridian/domain/job-registry";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { controlServerClock } from "../support/test-clock";
import { createObservatoryAs, startTestRuntime, type CallerAccount, type TestRuntime } from "../support/test-runtime";

/**
 * Issue 60, points 3 and 7: a plan after a change is made from the plan in force (the `network_plans` row, whichever
 * process made it) rather than from scratch. Two observatories without a location (only windows hold an observation,
 * so either is as good as the other for work that may run at both) and observations with windows later in the night,
 * so that nothing is dispatched while the test looks. No worker runs: the test runs the plan job as the worker would.
 */
const MINUTE = 60_000;
/**
 * The test's clock stands still soon after the real one (the observatories, never connected, count as available: not yet away
 * for long), two minutes past a five-minute boundary: the windows open between the plan's points, where dispatch run forward
 * starts work too.
 */
const START = Math.ceil(Date.now() / (5 * MINUTE)) * 5 * MINUTE + 2 * MINUTE;
const attempt = { job: { attempts: 1, max_attempts: 1 }, logger: { debug: () => undefined, info: () => undefined } };
const at = (minutes: number) => new Date(START + minutes * MINUTE).toISOString();

let runtime: TestRuntime;
let owner: CallerAccount;
let observatoryIds: [string, string];
let projectId: string;

beforeAll(async () => {
  runtime = await startTestRuntime({ env: { PLAN_HORIZON_HOURS: "6" } });
  controlServerClock(runtime, START);
  owner = await runtime.signup();
  observatoryIds = [(await createObservatoryAs(owner, "Warm A")).id, (await createObservatoryAs(owner, "Warm B")).id];
  projectId = (await owner.caller.projects.create({ name: `Warm ${randomUUID().slice(0, 6)}` })).id;
});
afterAll(async () => {
  await runtime?.stop();
});

/** An observation that may run at `candidates` only within [from, to) minutes after START, darkness waived. */
const submit = (name: string, candidates: string[], from: number, to: number) =>
  owner.caller.observations.create({
    projectId,
    name,
    priority: 5,
    ...(candidates.length === 1 ? { observatoryId: candidates[0] } : { candidateObservatoryIds: candidates }),
    type: "fixed_time",
    fixedTimeStart: at(from),
    fixedTimeEnd: at(to),
    bypassDarkness: true,
    targets: [{ name: "M 1", ra: 83.63, dec: 22.01, exposures: [{ filter: "L", exposureSeconds: 300, count: 2, binning: 1 }] }],
  } as Parameters<CallerAccount["caller"]["observations"]["create"]>[0]);

const makePlan = async () => {
  await jobRegistry.network_plan.run({}, { deps: runtime.deps, attempt });
  return (await readNetworkPlan(runtime.deps.db))!;
};
const slotOf = (plan: NetworkPlanDoc, observationId: string) => plan.slots.find((slot) => slot.observationId === observationId);

/** Puts a plan in force as another process would have written it. */
async function putInForce(plan: NetworkPlanDoc) {
  await runtime.deps.db.execute(sql`update network_plans set doc = ${JSON.stringify(plan)}::jsonb where id = 'current'`);
}

describe("a plan made after a change", () => {
  it("keeps the plan in force where it still holds: work that may run at either observatory stays where that plan put it", async () => {
    const moved = await submit("Either", observatoryIds, 120, 180);
    const first = slotOf(await makePlan(), moved.id)!;
    // The plan in force puts it at the other observatory, at the same start: as good a plan, which one from scratch does not make.
    const other = observatoryIds.find((id) => id !== first.observatoryId)!;
    const inForce = (await readNetworkPlan(runtime.deps.db))!;
    await putInForce({ ...inForce, slots: inForce.slots.map((slot) => (slot.observationId === moved.id ? { ...slot, observatoryId: other } : slot)) });

    // A change elsewhere: an observation at the first observatory alone, in a later window.
    const added = await submit("Later", [first.observatoryId], 240, 300);
    const plan = await makePlan();
    expect(slotOf(plan, added.id)).toMatchObject({ observatoryId: first.observatoryId });
    expect(slotOf(plan, moved.id)).toMatchObject({ observatoryId: other, start: first.start, end: first.end });
  });

  it("drops a run of the plan in force that no longer holds, and plans it where it does", async () => {
    const observation = await submit("Stale", observatoryIds, 60, 100);
    await makePlan();
    const inForce = (await readNetworkPlan(runtime.deps.db))!;
    // Before its window, and overlapping another run: no plan could hold it there.
    const busy = inForce.slots.find((slot) => slot.observationId !== observation.id)!;
    const stale = { ...slotOf(inForce, observation.id)!, observatoryId: busy.observatoryId, start: busy.start, end: busy.end };
    await putInForce({ ...inForce, slots: inForce.slots.map((slot) => (slot.observationId === observation.id ? stale : slot)) });

    await submit("Change", [observatoryIds[0]], 300, 340);
    const plan = await makePlan();
    const slot = slotOf(plan, observation.id)!;
    expect(Date.parse(slot.start)).toBeGreaterThanOrEqual(START + 60 * MINUTE);
    expect(Date.parse(slot.end)).toBeLessThanOrEqual(START + 100 * MINUTE);
    const sameObservatory = plan.slots.filter((other) => other.observatoryId === slot.observatoryId && other.observationId !== observation.id);
    for (const other of sameObservatory) expect(other.end <= slot.start || other.start >= slot.end, other.observationId).toBe(true);
  });
});
