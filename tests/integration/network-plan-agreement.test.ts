import { randomUUID } from "node:crypto";
import { readNetworkPlan, type NetworkPlanDoc } from "@meridian/db";
import { jobRegistry } from "@meridian/domain/job-registry";
import { reportObservationStatus } from "@meridian/domain/observations";
import { claimObservatoryConnection, observatoriesSeen, observatoryHello } from "@meridian/domain/observatories";
import type { Deps } from "@meridian/domain/platform";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { controlServerClock, type TestClock } from "../support/test-clock";
import { createObservatoryAs, startTestRuntime, type CallerAccount, type TestRuntime } from "../support/test-runtime";

/**
 * Issue 60, point 6: the network plan and dispatch agree minute by minute. Three observatories at two sites (two on La
 * Palma, one at Kitt Peak, where darkness begins near 01:50 UTC) and fifteen observations (most with candidates, a
 * monitoring cadence, windows, one never high enough; one more submitted, one edited and one cancelled during the
 * night) are run over three and a half hours of a December night on the test clock, one minute at a time. A window at
 * La Palma 1 makes the plan differ from dispatch alone, which would start Orion there at once and miss it.
 *
 * No worker runs: each minute the test runs what the worker would, in its order: the minute's sweep and failover, then
 * every dispatch asked for before the network plan (whose requests wait a moment to gather), then the dispatches the
 * plan asks for, until nothing is asked for. The plugins are simulated in process by the calls `/ws/observatory` makes
 * for their messages (claim and hello, a sighting each minute, `observation_status`): each starts what it is assigned
 * at once and reports it done when its estimate has passed.
 *
 * At each minute: what dispatch assigns at an observatory is what the plan it read starts there (that observation's slot
 * there has begun); no observation waits with a begun slot at a free observatory; the plan starts nothing at an
 * observatory before what runs there is expected to end; and nothing is assigned but by a dispatch so checked.
 */
const MINUTE = 60_000;
// The night of 2026-12-10 on La Palma, from 00:00 UTC.
const START = Date.parse("2026-12-11T00:00:00Z");
const RUN_MINUTES = 210;
const LA_PALMA = { latitude: 28.7606, longitude: -17.8792, elevation: 2396 };
const KITT_PEAK = { latitude: 31.9583, longitude: -111.5967, elevation: 2096 };
/** Jobs that have not settled after this many rounds ask for each other without end. */
const MAX_ROUNDS = 200;
const attempt = { job: { attempts: 1, max_attempts: 1 }, logger: { debug: () => undefined, info: () => undefined } };
const at = (minute: number) => new Date(START + minute * MINUTE).toISOString();

let runtime: TestRuntime;
let clock: TestClock;
let owner: CallerAccount;

beforeAll(async () => {
  // A horizon past the run's end, short enough that a plan each minute stays cheap (the model is the same at 72 hours).
  runtime = await startTestRuntime({ env: { PLAN_HORIZON_HOURS: "6" } });
  clock = controlServerClock(runtime, START);
  owner = await runtime.signup();
});
afterAll(async () => {
  await runtime?.stop();
});

interface Assignment {
  /** When it was made (epoch milliseconds). */
  at: number;
  observatoryId: string;
  observationId: string;
  /** The plan in force when the dispatch read it. */
  plan: NetworkPlanDoc | null;
}

/**
 * The worker's part, run by hand: `settle` runs the dispatch and plan jobs asked for, dispatches first, until none is
 * asked for, and records each assignment with the plan its dispatch read.
 */
function workerByHand(deps: Deps) {
  const assignments: Assignment[] = [];
  const queuedJobs = () =>
    deps.db.execute<{ id: string; task: string; payload: { observatoryId?: string } }>(sql`
      select j.id::text as id, k.identifier as task, j.payload from graphile_worker._private_jobs j
        join graphile_worker._private_tasks k on k.id = j.task_id
       where k.identifier in ('dispatch_observatory', 'network_plan') order by j.id`);
  const settle = async (now: number) => {
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const queued = await queuedJobs();
      const dispatch = queued.find((job) => job.task === "dispatch_observatory");
      if (dispatch) {
        await deps.db.execute(sql`select graphile_worker.complete_jobs(array[${dispatch.id}]::bigint[])`);
        const plan = await readNetworkPlan(deps.db);
        const observatoryId = dispatch.payload.observatoryId!;
        const assigned = (await jobRegistry.dispatch_observatory.run({ observatoryId }, { deps, attempt })) as { id: string } | null;
        if (assigned) assignments.push({ at: now, observatoryId, observationId: assigned.id, plan });
        continue;
      }
      if (!queued.some((job) => job.task === "network_plan")) return;
      await jobRegistry.network_plan.run({}, { deps, attempt });
    }
    throw new Error(`the jobs at ${new Date(now).toISOString()} did not settle in ${MAX_ROUNDS} rounds`);
  };
  /** The minute's cron: the sweep (a plan asked for, a dispatch at each free observatory with work waiting) and the failover. */
  const minuteCron = async () => {
    await jobRegistry.observations_maintenance.run({}, { deps, attempt });
    await jobRegistry.observations_failover.run({}, { deps, attempt });
  };
  return { assignments, settle, minuteCron };
}

interface Plugin {
  observatoryId: string;
  connectionId: string;
  /** What it runs and when its estimate has passed. */
  running: { observationId: string; until: number } | null;
}

/** A plugin at each observatory, by the domain calls its messages make: it runs one observation at a time, for its estimate. */
function pluginsAt(deps: Deps, observatoryIds: string[]) {
  const plugins: Plugin[] = observatoryIds.map((observatoryId) => ({ observatoryId, connectionId: randomUUID(), running: null }));
  return {
    plugins,
    async connect() {
      for (const { observatoryId, connectionId } of plugins) {
        expect(await claimObservatoryConnection({ deps, observatoryId, connectionId })).toBe(true);
        await observatoryHello({ deps, observatoryId, connectionId, pluginVersion: "4.0.0.0" });
      }
    },
    /** What has run its estimate is done and completed (its frames, of which there are none here, uploaded); each is seen. */
    async finishAndBeSeen(now: number) {
      for (const plugin of plugins) {
        if (!plugin.running || plugin.running.until > now) continue;
        for (const status of ["acquisition_complete", "completed"] as const)
          await reportObservationStatus({ deps, observatoryId: plugin.observatoryId, observationId: plugin.running.observationId, status });
        plugin.running = null;
      }
      await observatoriesSeen({ deps, sightings: plugins.map(({ observatoryId, connectionId }) => ({ observatoryId, connectionId, at: new Date(now) })) });
    },
    /** Each starts what it was assigned at once (`assign` heard, `observation_status` in_progress). */
    async startAssigned(now: number) {
      for (const plugin of plugins) {
        const [assigned] = await deps.db.execute<{ id: string }>(sql`
          select id from observations where observatory_id = ${plugin.observatoryId} and status = 'assigned'`);
        if (!assigned) continue;
        const { estimatedSeconds } = await owner.caller.observations.get({ id: assigned.id });
        await reportObservationStatus({ deps, observatoryId: plugin.observatoryId, observationId: assigned.id, status: "in_progress" });
        plugin.running = { observationId: assigned.id, until: now + estimatedSeconds * 1000 };
      }
    },
  };
}

/** A disagreement of the plan and dispatch at one minute, by the names of what it concerns. */
type Disagreement = { at: string; kind: string; observatoryId: string; observationId: string; detail?: string };

/** Each assignment of the minute was the plan's: that observation's slot at that observatory, begun, in the plan its dispatch read. */
function assignmentDisagreements(assignments: Assignment[], now: number): Disagreement[] {
  const at = new Date(now).toISOString();
  return assignments.flatMap(({ observatoryId, observationId, plan }): Disagreement[] => {
    const slots = plan?.slots.filter((slot) => slot.observationId === observationId && Date.parse(slot.end) > now) ?? [];
    const here = slots.find((slot) => slot.observatoryId === observatoryId);
    const where = slots.map((slot) => `${slot.observatoryId} at ${slot.start}`).join(", ") || "not in the plan";
    if (!here) return [{ at, kind: "assigned what the plan does not start there", observatoryId, observationId, detail: where }];
    if (Date.parse(here.start) > now) return [{ at, kind: "assigned before its planned start", observatoryId, observationId, detail: here.start }];
    return [];
  });
}

/**
 * Settled at the minute: nothing is assigned but by a recorded dispatch; at a free observatory no observation waits
 * with a slot that has begun there; at a busy one the plan starts nothing before its run's estimate has passed.
 */
function settledDisagreements(options: {
  now: number;
  plan: NetworkPlanDoc | null;
  statuses: Array<{ id: string; status: string; observatory_id: string | null }>;
  plugins: Plugin[];
  assignments: Assignment[];
}): Disagreement[] {
  const { now, plan, statuses, plugins, assignments } = options;
  const found: Disagreement[] = [];
  const disagree = (kind: string, observatoryId: string, observationId: string, detail?: string) =>
    found.push({ at: new Date(now).toISOString(), kind, observatoryId, observationId, detail });
  const status = new Map(statuses.map((row) => [row.id, row.status]));
  for (const row of statuses) {
    if (row.status !== "assigned" && row.status !== "in_progress") continue;
    const made = assignments.findLast((assignment) => assignment.observationId === row.id);
    if (made?.observatoryId !== row.observatory_id) disagree("assigned but not by a dispatch", row.observatory_id!, row.id);
  }
  for (const { observatoryId, running } of plugins) {
    const slots = plan?.slots.filter((slot) => slot.observatoryId === observatoryId) ?? [];
    if (running) {
      for (const slot of slots.filter((candidate) => Date.parse(candidate.start) < running.until))
        disagree("planned at a busy observatory", observatoryId, slot.observationId, `${slot.start}, busy until ${new Date(running.until).toISOString()}`);
      continue;
    }
    for (const slot of slots.filter((candidate) => Date.parse(candidate.start) <= now && Date.parse(candidate.end) > now)) {
      if (status.get(slot.observationId) === "pending")
        disagree("waits with a begun slot at a free observatory", observatoryId, slot.observationId, slot.start);
    }
  }
  return found;
}

const target = (name: string, ra: number, dec: number, seconds: number, count: number) => ({
  name,
  ra,
  dec,
  exposures: [{ filter: "L", exposureSeconds: seconds, count, binning: 1 }],
});

/**
 * Runs the network minute by minute from `from` (the clock's time, which only moves forward) for `minutes`: the plugins
 * connect first, then each minute the plugins finish what is done and are seen, the minute's cron runs, the change due
 * then (if any) is made, the jobs settle, the plugins start what they were assigned, the jobs settle again; the checks
 * of each minute are gathered.
 */
async function runMinuteByMinute(options: {
  observatoryIds: string[];
  projectId: string;
  from: number;
  minutes: number;
  changesAt?: Map<number, () => Promise<unknown>>;
}) {
  const { deps } = runtime;
  const { from, projectId } = options;
  const worker = workerByHand(deps);
  const network = pluginsAt(deps, options.observatoryIds);
  clock.set(from);
  // Each hello asks for a dispatch and a plan; the first plan is made before those dispatches, which follow it
  // (without a plan, dispatch alone decides: the first dispatches of a server that never planned).
  await network.connect();
  await jobRegistry.network_plan.run({}, { deps, attempt });
  const statuses = () =>
    deps.db.execute<{ id: string; status: string; observatory_id: string | null }>(sql`
      select id, status, observatory_id from observations where project_id = ${projectId}`);
  const disagreements: Disagreement[] = [];
  for (let minute = 0; minute <= options.minutes; minute += 1) {
    const now = from + minute * MINUTE;
    clock.set(now);
    await network.finishAndBeSeen(now);
    await worker.minuteCron();
    await options.changesAt?.get(minute)?.();
    const before = worker.assignments.length;
    await worker.settle(now);
    disagreements.push(...assignmentDisagreements(worker.assignments.slice(before), now));
    await network.startAssigned(now);
    await worker.settle(now);
    const [plan, settled] = await Promise.all([readNetworkPlan(deps.db), statuses()]);
    disagreements.push(...settledDisagreements({ now, plan, statuses: settled, plugins: network.plugins, assignments: worker.assignments }));
  }
  return { assignments: worker.assignments, disagreements, statuses };
}

/** The disagreements with names for ids, as a reader of the failure wants them. */
function readable(disagreements: Disagreement[], names: Map<string, string>) {
  const read = (text?: string) => text?.replaceAll(/\b(obs|obn)_[\w-]+/g, (id) => names.get(id) ?? id);
  return disagreements.map((found) => ({
    ...found,
    observatoryId: read(found.observatoryId),
    observationId: read(found.observationId),
    detail: read(found.detail),
  }));
}

describe("the network plan and dispatch, minute by minute", () => {
  it(
    "agree at every minute of three and a half hours of a night on a simulated network of three observatories at two sites",
    { timeout: 120_000 },
    async () => {
      const observatoryIds = (await Promise.all(["La Palma 1", "La Palma 2", "Kitt Peak"].map((name) => createObservatoryAs(owner, name)))).map(({ id }) => id);
      const [palmaOne, palmaTwo, kitt] = observatoryIds as [string, string, string];
      for (const [id, location] of [
        [palmaOne, LA_PALMA],
        [palmaTwo, LA_PALMA],
        [kitt, KITT_PEAK],
      ] as const)
        await owner.caller.observatories.update({ id, update: { location } });
      const projectId = (await owner.caller.projects.create({ name: `Network night ${randomUUID().slice(0, 6)}` })).id;
      const submit = (fields: Record<string, unknown>) =>
        owner.caller.observations.create({ projectId, ...fields } as Parameters<CallerAccount["caller"]["observations"]["create"]>[0]);

      const everywhere = observatoryIds;
      const observations = [
        await submit({ name: "Pleiades", priority: 7, candidateObservatoryIds: everywhere, targets: [target("M 45", 56.75, 24.12, 600, 3)] }),
        await submit({ name: "Orion", priority: 9, candidateObservatoryIds: [palmaOne, palmaTwo], targets: [target("M 42", 83.82, -5.39, 300, 5)] }),
        await submit({ name: "Crab", priority: 6, observatoryId: palmaOne, targets: [target("M 1", 83.63, 22.01, 600, 4)] }),
        await submit({ name: "Andromeda", priority: 5, candidateObservatoryIds: [palmaTwo, kitt], targets: [target("M 31", 10.68, 41.27, 600, 2)] }),
        await submit({ name: "Beehive", priority: 8, candidateObservatoryIds: everywhere, targets: [target("M 44", 130.1, 19.67, 300, 4)] }),
        await submit({ name: "Rosette", priority: 4, observatoryId: palmaTwo, targets: [target("NGC 2244", 98.0, 4.93, 600, 3)] }),
        await submit({ name: "Bode", priority: 6, candidateObservatoryIds: [palmaOne, kitt], targets: [target("M 81", 148.89, 69.07, 600, 2)] }),
        await submit({ name: "Perseus pair", priority: 3, candidateObservatoryIds: everywhere, targets: [target("NGC 869", 34.75, 57.13, 300, 6)] }),
        await submit({ name: "Triangulum", priority: 5, observatoryId: kitt, targets: [target("M 33", 23.46, 30.66, 600, 3)] }),
        await submit({ name: "Eskimo", priority: 7, candidateObservatoryIds: [palmaTwo, kitt], targets: [target("NGC 2392", 112.29, 20.91, 300, 3)] }),
        // Half an hour within a window from ten to fifty minutes in, at La Palma 1 only: dispatch alone would start Orion
        // there at once and make it miss its window; the plan keeps La Palma 1 for it and runs Orion at La Palma 2.
        await submit({
          name: "Window",
          priority: 10,
          observatoryId: palmaOne,
          type: "time_based",
          fixedTimeStart: at(10),
          fixedTimeEnd: at(50),
          targets: [target("M 35", 92.25, 24.33, 300, 5)],
        }),
        // Not before a fixed moment at Kitt Peak, once it is dark there.
        await submit({
          name: "Fixed",
          priority: 9,
          observatoryId: kitt,
          type: "fixed_time",
          fixedTimeStart: at(150),
          targets: [target("M 77", 40.67, -0.01, 300, 2)],
        }),
        // Every 45 minutes from the end of a run, three runs, anywhere.
        await submit({
          name: "Algol watch",
          priority: 6,
          candidateObservatoryIds: everywhere,
          type: "monitoring",
          monitoring: { intervalMinutes: 45, maxRuns: 3 },
          targets: [target("Algol", 47.04, 40.96, 60, 4)],
        }),
        await submit({ name: "Seagull", priority: 2, candidateObservatoryIds: everywhere, targets: [target("IC 2177", 105.6, -10.6, 600, 4)] }),
        // Never above 30° at either site: it waits all night.
        await submit({ name: "Small cloud", priority: 10, candidateObservatoryIds: everywhere, targets: [target("SMC", 13.19, -72.83, 300, 2)] }),
      ];
      const named = (name: string) => observations.find((observation) => observation.name === name)!.id;
      // Changes during the night, each of which asks for a plan: a submission, an edit and a cancel.
      const changesAt = new Map<number, () => Promise<unknown>>([
        [
          70,
          async () =>
            observations.push(
              await submit({ name: "Late", priority: 8, candidateObservatoryIds: [palmaOne, palmaTwo], targets: [target("M 37", 88.07, 32.55, 300, 4)] }),
            ),
        ],
        [95, () => owner.caller.observations.update({ id: named("Perseus pair"), update: { priority: 9 } })],
        [110, () => owner.caller.observations.cancel({ id: named("Seagull") })],
      ]);

      const { assignments, disagreements, statuses } = await runMinuteByMinute({ observatoryIds, projectId, from: START, minutes: RUN_MINUTES, changesAt });
      const names = new Map<string, string>([
        ...observations.map((observation) => [observation.id, observation.name] as const),
        [palmaOne, "La Palma 1"],
        [palmaTwo, "La Palma 2"],
        [kitt, "Kitt Peak"],
      ]);
      expect(readable(disagreements, names)).toEqual([]);
      // Not vacuous: work ran at every observatory (the window at its time), the late submission ran, and the one never high enough waited.
      expect(new Set(assignments.map((assignment) => assignment.observatoryId))).toEqual(new Set(observatoryIds));
      expect(assignments.length).toBeGreaterThanOrEqual(12);
      expect(assignments.find((assignment) => assignment.observationId === named("Window"))).toMatchObject({
        at: START + 10 * MINUTE,
        observatoryId: palmaOne,
      });
      const final = new Map((await statuses()).map((row) => [row.id, row.status]));
      expect(final.get(named("Late"))).toBe("completed");
      expect(final.get(named("Small cloud"))).toBe("pending");
    },
  );
  it("agree where the plan leaves out what would spend the allocation that better work later needs", { timeout: 60_000 }, async () => {
    // After the first test's run, at an observatory without a location: only the window and the allocation decide.
    const from = START + 6 * 60 * MINUTE;
    const [observatoryId] = [(await createObservatoryAs(owner, "Allocated")).id];
    const projectId = (await owner.caller.projects.create({ name: `Allocated ${randomUUID().slice(0, 6)}` })).id;
    clock.set(from);
    // An hour for the project here: the 48.5 minutes that may run from half an hour on leave no room for 22.7 more.
    await owner.caller.observatories.putAllocation({ id: observatoryId, projectId, hours: 1, periodStart: new Date(from).toISOString() });
    const late = await owner.caller.observations.create({
      name: "Worth more, later",
      projectId,
      observatoryId,
      priority: 9,
      type: "time_based",
      fixedTimeStart: new Date(from + 30 * MINUTE).toISOString(),
      fixedTimeEnd: new Date(from + 180 * MINUTE).toISOString(),
      targets: [target("Vega", 279.23, 38.78, 300, 9)],
    });
    const now = await owner.caller.observations.create({
      name: "Worth less, now",
      projectId,
      observatoryId,
      priority: 3,
      targets: [target("Deneb", 310.36, 45.28, 300, 4)],
    });
    const { assignments, disagreements } = await runMinuteByMinute({ observatoryIds: [observatoryId], projectId, from, minutes: 90 });
    const names = new Map([
      [observatoryId, "Allocated"],
      [late.id, late.name],
      [now.id, now.name],
    ]);
    expect(readable(disagreements, names)).toEqual([]);
    expect(assignments.map((assignment) => [assignment.observationId, (assignment.at - from) / MINUTE])).toEqual([[late.id, 30]]);
  });
});
