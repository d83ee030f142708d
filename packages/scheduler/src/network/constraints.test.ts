import {
  AngleBetween,
  Body,
  Equator,
  EquatorFromVector,
  Horizon,
  MakeTime,
  Observer,
  RotateVector,
  Rotation_EQJ_EQD,
  Spherical,
  VectorFromSphere,
} from "astronomy-engine";
import { describe, expect, it } from "vitest";
import { isEligibleAt } from "../queue";
import { runNetworkDispatchForward } from "./dispatch-forward";
import type { NetworkBlock, NetworkPlan } from "./inputs";
import { NetworkPlanCache } from "./instance";
import { objectiveOf, planNetwork, plannedReason } from "./plan";
import { seededNetwork, type SeededNetwork, type SeededObservation } from "./seeded-network";

const MINUTE = 60_000;
const STEP = 5 * MINUTE;
/** The planner's sky model interpolates the sun and the Moon: it agrees with astronomy-engine to far less than this. */
const TOLERANCE_DEGREES = 0.01;
const SUN_LIMIT = { astronomical: -18, nautical: -12, civil: -6 } as const;

/** The sky at a site, straight from astronomy-engine (none of the planner's own code). */
function skyAt(location: { latitude: number; longitude: number; elevation: number }, target: { ra: number; dec: number }, at: Date) {
  const observer = new Observer(location.latitude, location.longitude, location.elevation);
  const sun = Equator(Body.Sun, at, observer, true, true);
  const time = MakeTime(at);
  const ofDate = EquatorFromVector(RotateVector(Rotation_EQJ_EQD(time), VectorFromSphere(new Spherical(target.dec, target.ra, 1), time)));
  const moon = Equator(Body.Moon, at, observer, true, true);
  const vector = (ra: number, dec: number) => VectorFromSphere(new Spherical(dec, ra * 15, 1), time);
  return {
    sunAltitude: Horizon(at, observer, sun.ra, sun.dec).altitude,
    altitude: Horizon(at, observer, ofDate.ra, ofDate.dec, "normal").altitude,
    moonDistance: AngleBetween(vector(moon.ra, moon.dec), vector(ofDate.ra, ofDate.dec)),
  };
}

const airmass = (altitude: number) => 1 / (Math.sin((altitude * Math.PI) / 180) + 0.50572 * (altitude + 6.07995) ** -1.6364);

/** Every moment a run must meet its constraints at: its start, each five-minute boundary inside it, its end. */
function momentsOf(block: NetworkBlock): Date[] {
  const start = block.start.getTime();
  const end = block.end.getTime();
  const moments = [start];
  for (let at = Math.floor(start / STEP) * STEP + STEP; at < end; at += STEP) moments.push(at);
  moments.push(end);
  return moments.map((ms) => new Date(ms));
}

/** Checks every rule of the contract on a plan, independently of the planner: returns what is broken. */
function brokenRules(network: SeededNetwork, plan: NetworkPlan<SeededObservation>): string[] {
  const broken: string[] = [];
  // The location is the planner's input; everything computed from it below is astronomy-engine's.
  const siteOf = (observatoryId: string) => network.observatories.find((observatory) => observatory.id === observatoryId)!.model!.location;
  for (const block of plan.blocks) {
    const { doc } = block.observation;
    const name = `${block.observation.id} run ${block.run} at ${block.observatoryId} ${block.start.toISOString()}`;
    const observatory = network.observatories.find((candidate) => candidate.id === block.observatoryId)!;
    if (!block.observation.candidateObservatoryIds.includes(block.observatoryId)) broken.push(`${name}: not a candidate`);
    if (observatory.filters && !block.observation.filters.every((filter) => observatory.filters!.some((has) => has.toLowerCase() === filter.toLowerCase())))
      broken.push(`${name}: filter missing`);
    if (block.end.getTime() - block.start.getTime() !== network.durationMs(block.observation, block.observatoryId)) broken.push(`${name}: not its estimate`);
    if (block.start < network.now || block.start.getTime() >= network.now.getTime() + network.horizonHours! * 3_600_000)
      broken.push(`${name}: outside the horizon`);
    if (doc.fixedTimeStart && block.start < new Date(doc.fixedTimeStart)) broken.push(`${name}: before its window`);
    if (doc.fixedTimeEnd && block.end > new Date(doc.fixedTimeEnd)) broken.push(`${name}: after its window`);
    for (const at of momentsOf(block)) {
      const sky = skyAt(siteOf(block.observatoryId), doc.targets[0]!, at);
      const { minAltitude = 30, maxAirmass, moonDistance, twilight = "astronomical" } = doc.constraints;
      if (!doc.bypassDarkness && sky.sunAltitude >= SUN_LIMIT[twilight] + TOLERANCE_DEGREES) broken.push(`${name}: not dark at ${at.toISOString()}`);
      if (sky.altitude < minAltitude - TOLERANCE_DEGREES) broken.push(`${name}: ${sky.altitude.toFixed(2)}° at ${at.toISOString()}`);
      if (maxAirmass != null && airmass(sky.altitude) > maxAirmass + 1e-3) broken.push(`${name}: airmass at ${at.toISOString()}`);
      if (moonDistance != null && sky.moonDistance < moonDistance - TOLERANCE_DEGREES) broken.push(`${name}: Moon at ${at.toISOString()}`);
    }
  }
  for (const observatory of network.observatories) {
    const runs = plan.blocks.filter((block) => block.observatoryId === observatory.id).sort((a, b) => a.start.getTime() - b.start.getTime());
    runs.forEach((block, index) => {
      if (index > 0 && block.start < runs[index - 1]!.end)
        broken.push(`${block.observation.id} overlaps ${runs[index - 1]!.observation.id} at ${observatory.id}`);
      if (observatory.busyUntil && block.start < observatory.busyUntil) broken.push(`${block.observation.id} starts while ${observatory.id} is busy`);
    });
    if (observatory.unavailable && runs.length > 0) broken.push(`${observatory.id} is unavailable but planned`);
  }
  for (const allocation of network.allocations ?? []) {
    const used = plan.blocks
      .filter((block) => block.observatoryId === allocation.observatoryId && block.observation.doc.projectId === allocation.projectId)
      .reduce((total, block) => total + block.end.getTime() - block.start.getTime(), 0);
    if (used > allocation.leftMs) broken.push(`${allocation.projectId} at ${allocation.observatoryId}: ${used} ms of ${allocation.leftMs}`);
  }
  const byObservation = new Map<SeededObservation, NetworkBlock[]>();
  for (const block of plan.blocks) byObservation.set(block.observation, [...(byObservation.get(block.observation) ?? []), block]);
  for (const [observation, blocks] of byObservation) {
    const cadence = observation.doc.monitoring;
    if (!cadence) {
      if (blocks.length > 1) broken.push(`${observation.id} planned ${blocks.length} times`);
      continue;
    }
    const runs = blocks.sort((a, b) => a.start.getTime() - b.start.getTime());
    if (cadence.maxRuns && runs.length > cadence.maxRuns - (observation.doc.monitoringRuns?.count ?? 0))
      broken.push(`${observation.id}: more runs than maxRuns`);
    runs.forEach((block, index) => {
      if (index > 0 && block.start.getTime() < runs[index - 1]!.end.getTime() + cadence.intervalMinutes * MINUTE)
        broken.push(`${observation.id}: run ${index} too soon`);
    });
  }
  return broken;
}

describe("every constraint of every planned run, checked with astronomy-engine", () => {
  it("holds at each run's start, every five minutes of it and its end, on seeded networks across three nights", () => {
    for (const seed of [21, 22]) {
      const network = seededNetwork({ seed, observatories: 6, observations: 90, horizonHours: 72 });
      // One observatory busy for the first hours, one unavailable.
      network.observatories[1]!.busyUntil = new Date(network.now.getTime() + 9 * 3_600_000);
      network.observatories[4]!.unavailable = "OFFLINE";
      const plan = planNetwork(network);
      expect(plan.blocks.length).toBeGreaterThan(20);
      expect(brokenRules(network, plan)).toEqual([]);
      // And dispatch, asked at each planned start, would start it: the plan and dispatch agree.
      for (const block of plan.blocks) {
        const model = network.observatories.find((observatory) => observatory.id === block.observatoryId)!.model;
        const durationMs = block.end.getTime() - block.start.getTime();
        const doc = block.run === 0 ? block.observation.doc : { ...block.observation.doc, monitoringRuns: undefined };
        expect(isEligibleAt({ doc, model, ms: block.start.getTime(), durationMs }), block.observation.id).toBe(true);
      }
    }
  });
});

/** A network of two observatories at La Palma and observations of one target, high all night in December. */
function laPalmaNetwork(count: number, fields: (index: number) => Partial<SeededObservation["doc"]> & { candidates?: string[] } = () => ({})) {
  const network = seededNetwork({ seed: 3, observatories: 2, observations: count, sites: 1, allocations: false, monitoring: false });
  network.observations.forEach((observation, index) => {
    const { candidates, ...doc } = fields(index);
    Object.assign(observation.doc, { fixedTimeStart: null, fixedTimeEnd: null, monitoring: null }, doc);
    observation.doc.targets[0] = { ...observation.doc.targets[0]!, ra: 60, dec: 25 };
    observation.doc.constraints = { minAltitude: 20, maxAirmass: null, moonDistance: null, twilight: "astronomical" };
    observation.filters = ["L"];
    observation.candidateObservatoryIds = candidates ?? ["obs_01", "obs_02"];
  });
  return network;
}

describe("allocations, cadences and windows in the network plan", () => {
  it("charges an allocation across the nights: a project's runs at an observatory add up to what it has left, no more", () => {
    const network = laPalmaNetwork(40, (index) => ({ projectId: index < 30 ? "prj_limited" : "prj_free", candidates: ["obs_01"] }));
    network.allocations = [
      {
        observatoryId: "obs_01",
        projectId: "prj_limited",
        leftMs: 5 * 3_600_000,
        periodStart: new Date("2026-12-01T00:00:00Z"),
        periodEnd: new Date("2027-01-01T00:00:00Z"),
      },
    ];
    const plan = planNetwork(network);
    const limited = plan.blocks.filter((block) => block.observation.doc.projectId === "prj_limited");
    const used = limited.reduce((total, block) => total + block.end.getTime() - block.start.getTime(), 0);
    expect(used).toBeLessThanOrEqual(5 * 3_600_000);
    // More than one night's worth of its runs: the allowance carries from one night to the next.
    expect(new Set(limited.map((block) => block.start.toISOString().slice(0, 10))).size).toBeGreaterThan(1);
    expect(brokenRules(network, plan)).toEqual([]);
    const left = plan.unscheduled.find((item) => item.observation.doc.projectId === "prj_limited");
    expect(left?.reasons).toEqual([{ observatoryId: "obs_01", code: "ALLOCATION_EXHAUSTED", until: null }]);
  });

  it("starts nothing of an allocated project before its period begins", () => {
    const network = laPalmaNetwork(4, () => ({ projectId: "prj_later", candidates: ["obs_01"] }));
    const periodStart = new Date("2026-12-11T23:00:00Z");
    network.allocations = [
      { observatoryId: "obs_01", projectId: "prj_later", leftMs: 10 * 3_600_000, periodStart, periodEnd: new Date("2027-02-01T00:00:00Z") },
    ];
    const plan = planNetwork(network);
    expect(plan.blocks.length).toBeGreaterThan(0);
    for (const block of plan.blocks) expect(block.start.getTime()).toBeGreaterThanOrEqual(periodStart.getTime());
  });

  it("plans a monitoring cadence run after run, an interval apart, up to its runs left, at any of its observatories", () => {
    const network = laPalmaNetwork(1, () => ({
      monitoring: { intervalMinutes: 180, until: null, maxRuns: 5 },
      monitoringRuns: { count: 1, lastEndedAt: "2026-12-10T20:00:00.000Z" },
    }));
    const plan = planNetwork(network);
    const runs = plan.blocks.map((block) => block.start.getTime());
    // Four runs left; three nights hold them with 3 h between them.
    expect(plan.blocks.map((block) => block.run)).toEqual([0, 1, 2, 3]);
    expect(runs[0]).toBeGreaterThanOrEqual(Date.parse("2026-12-10T23:00:00Z"));
    expect(brokenRules(network, plan)).toEqual([]);
  });

  it("keeps a fixed window, and explains one that lies in daylight", () => {
    const network = laPalmaNetwork(3, (index) =>
      index === 0
        ? { fixedTimeStart: "2026-12-11T02:00:00.000Z", fixedTimeEnd: "2026-12-11T03:00:00.000Z" }
        : index === 1
          ? { fixedTimeStart: "2026-12-11T12:00:00.000Z", fixedTimeEnd: "2026-12-11T14:00:00.000Z" }
          : {},
    );
    const [windowed, daylight] = network.observations;
    network.durationMs = () => 20 * MINUTE;
    const plan = planNetwork(network);
    const block = plan.blocks.find((candidate) => candidate.observation === windowed)!;
    expect(block.start.getTime()).toBeGreaterThanOrEqual(Date.parse("2026-12-11T02:00:00Z"));
    expect(block.end.getTime()).toBeLessThanOrEqual(Date.parse("2026-12-11T03:00:00Z"));
    expect(plan.unscheduled.find((item) => item.observation === daylight)?.reasons.map((reason) => reason.code)).toEqual(["NOT_DARK", "NOT_DARK"]);
    expect(brokenRules(network, plan)).toEqual([]);
  });
});

describe("the plan's reasons", () => {
  it("names FILTER_MISSING, an unavailable observatory and OBSERVATORY_BUSY per candidate, and PLANNED_LATER or PLANNED_ELSEWHERE for what it runs", () => {
    const network = laPalmaNetwork(2, () => ({}));
    network.observatories[0]!.filters = ["R", "G", "B"];
    network.observatories[1]!.unavailable = "UNSAFE";
    const plan = planNetwork(network);
    expect(plan.blocks).toEqual([]);
    for (const item of plan.unscheduled) {
      expect(item.reasons).toEqual([
        { observatoryId: "obs_01", code: "FILTER_MISSING", until: null },
        { observatoryId: "obs_02", code: "UNSAFE", until: null },
      ]);
    }

    const open = laPalmaNetwork(2, () => ({ candidates: ["obs_01", "obs_02"] }));
    const planned = planNetwork(open);
    const first = planned.blocks[0]!;
    const other = first.observatoryId === "obs_01" ? "obs_02" : "obs_01";
    const before = new Date(first.start.getTime() - 10 * MINUTE);
    expect(plannedReason(planned, { observationId: first.observation.id, observatoryId: first.observatoryId, now: before })).toEqual({
      observatoryId: first.observatoryId,
      code: "PLANNED_LATER",
      until: first.start,
    });
    expect(plannedReason(planned, { observationId: first.observation.id, observatoryId: other, now: before })).toMatchObject({
      code: "PLANNED_ELSEWHERE",
      plannedAt: first.observatoryId,
    });
    expect(plannedReason(planned, { observationId: first.observation.id, observatoryId: first.observatoryId, now: first.start })).toBeNull();
  });

  it("plans again after a change from the plan before it, keeping what still holds", () => {
    const network = seededNetwork({ seed: 31, observatories: 4, observations: 60, horizonHours: 30 });
    const plan = planNetwork(network);
    const added = { ...network.observations[0]!, id: "obn_added", priority: 10, doc: { ...network.observations[0]!.doc, priority: 10 } };
    const again = planNetwork({ ...network, observations: [added, ...network.observations] }, { previous: plan });
    expect(again.objective).toBeGreaterThanOrEqual(plan.objective);
    expect(brokenRules(network, again)).toEqual([]);
  });
});

describe("a plan made from the plan before a change", () => {
  /** Changes after which runs of the plan before no longer hold where they were. */
  const changes: Record<string, (network: SeededNetwork) => void> = {
    "observatories busy for hours, away, and edited, finished and new observations": (network) => {
      network.observatories[0]!.busyUntil = new Date(network.now.getTime() + 9 * 3_600_000);
      network.observatories[2]!.unavailable = "UNSAFE";
      const [edited, finished, ...rest] = network.observations;
      const added = { ...finished!, id: "obn_added", priority: 10, doc: { ...finished!.doc, priority: 10 } };
      network.observations = [{ ...edited!, doc: { ...edited!.doc, constraints: { ...edited!.doc.constraints, minAltitude: 70 } } }, added, ...rest];
    },
    "longer estimates everywhere and allocations spent": (network) => {
      const durationMs = network.durationMs;
      network.durationMs = (observation, observatoryId) => durationMs(observation, observatoryId) + 4 * MINUTE;
      network.allocations = network.allocations!.map((allocation) => ({ ...allocation, leftMs: 0 }));
    },
    "the plan made three hours later": (network) => {
      network.now = new Date(network.now.getTime() + 3 * 3_600_000);
    },
  };

  for (const [name, change] of Object.entries(changes)) {
    it(`keeps every rule after ${name}, worth no less than dispatch or a plan from scratch`, () => {
      for (const seed of [23, 24]) {
        const network = seededNetwork({ seed, observatories: 5, observations: 80, horizonHours: 48 });
        const cache = new NetworkPlanCache();
        const before = planNetwork(network, { cache });
        change(network);
        const warm = planNetwork(network, { previous: before, cache });
        expect(brokenRules(network, warm), `seed ${seed}`).toEqual([]);
        expect(warm.objective).toBeGreaterThanOrEqual(objectiveOf(runNetworkDispatchForward(network)));
        // Not a guarantee (a plan from the plan before may come out a little below one from scratch; the benchmark reports
        // both on its network), but on these networks it does not.
        expect(warm.objective).toBeGreaterThanOrEqual(planNetwork(network).objective);
      }
    });
  }
});
