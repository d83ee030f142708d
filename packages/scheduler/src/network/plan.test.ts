import { describe, expect, it } from "vitest";
import { bucketBound, bucketModel, planInBuckets } from "./bound";
import { runNetworkDispatchForward } from "./dispatch-forward";
import type { NetworkObservation, NetworkPlanInput } from "./inputs";
import { buildInstance, type Instance } from "./instance";
import { loadSolver, planInModel, solveExactly, timeIndexedModel } from "./milp";
import { objectiveOf, planNetwork } from "./plan";
import { seededRandom } from "./random";
import { seededNetwork, type SeededObservation } from "./seeded-network";

const MINUTE = 60_000;

/**
 * The optimum of the plan's model by enumeration: every subset of jobs, every choice of site for
 * each, and every order of the jobs at each observatory, each placed at its earliest start after
 * the one before (for a fixed order that start is as early as any plan can give it, so a set that
 * fits in some order is found). Small instances only: no cadences.
 */
function bruteForceOptimum(instance: Instance): number {
  const jobs = instance.jobs.filter((job) => job.sites.some((site) => site.starts.length > 0));
  let best = 0;
  const fitsInSomeOrder = (chosen: Array<{ job: (typeof jobs)[number]; site: number }>): boolean => {
    const permute = (left: typeof chosen, free: number): boolean => {
      if (left.length === 0) return true;
      return left.some((item, index) => {
        const site = item.job.sites[item.site]!;
        const start = site.starts.find((candidate) => candidate >= free);
        return start !== undefined && permute([...left.slice(0, index), ...left.slice(index + 1)], start + site.durationMs);
      });
    };
    return permute(chosen, -Infinity);
  };
  const search = (index: number, chosen: Array<{ job: (typeof jobs)[number]; site: number }>) => {
    if (index === jobs.length) {
      const used = new Map<number, number>();
      for (const { job, site } of chosen) {
        const budget = job.sites[site]!.budget;
        if (budget >= 0) used.set(budget, (used.get(budget) ?? 0) + job.sites[site]!.durationMs);
      }
      if ([...used].some(([budget, ms]) => ms > instance.budgets[budget]!.leftMs)) return;
      const byObservatory = new Map<number, typeof chosen>();
      for (const item of chosen)
        byObservatory.set(item.job.sites[item.site]!.observatory, [...(byObservatory.get(item.job.sites[item.site]!.observatory) ?? []), item]);
      if (![...byObservatory.values()].every(fitsInSomeOrder)) return;
      best = Math.max(
        best,
        chosen.reduce((total, { job, site }) => total + job.sites[site]!.value, 0),
      );
      return;
    }
    search(index + 1, chosen);
    jobs[index]!.sites.forEach((site, siteIndex) => site.starts.length > 0 && search(index + 1, [...chosen, { job: jobs[index]!, site: siteIndex }]));
  };
  search(0, []);
  return best;
}

/** A small network whose estimates are whole multiples of five minutes, so every plan's starts lie on the model's points. */
function smallNetwork(seed: number): NetworkPlanInput<SeededObservation> {
  const random = seededRandom(seed * 7919);
  const network = seededNetwork({
    seed,
    observatories: 2,
    observations: 7,
    sites: 1,
    now: new Date("2026-12-10T23:00:00Z"),
    horizonHours: 1.5,
    monitoring: false,
  });
  const minutes = new Map(network.observations.map((observation) => [observation.id, 5 * (3 + Math.floor(random() * 8))]));
  // High targets, so that most observations can run and compete for the time.
  for (const observation of network.observations) {
    observation.doc.targets[0]!.ra = 30 + random() * 60;
    observation.doc.targets[0]!.dec = -10 + random() * 40;
    observation.doc.constraints.minAltitude = 30;
  }
  return { ...network, durationMs: (observation) => minutes.get(observation.id)! * MINUTE };
}

describe("the network plan against the optimum of its model", () => {
  it("reaches the brute-force optimum on small networks it can enumerate, and so does the MILP of starts on points", async () => {
    const highs = await loadSolver();
    for (let seed = 1; seed <= 8; seed += 1) {
      const input = smallNetwork(seed);
      const instance = buildInstance(input);
      const optimum = bruteForceOptimum(instance);
      expect(optimum, `seed ${seed}`).toBeGreaterThan(0);
      const plan = planNetwork(input);
      expect(plan.objective, `seed ${seed}`).toBeCloseTo(optimum, 6);
      expect(solveExactly(instance, { highs, gap: 0, pointsOnly: true }).objective, `seed ${seed}`).toBeCloseTo(optimum, 6);
      expect(solveExactly(instance, { highs, gap: 0 }).bound, `seed ${seed}`).toBeGreaterThanOrEqual(plan.objective - 1e-6);
    }
  });

  it("is within 5 % of the MILP's optimum (1 % gap) on a seeded network of three observatories", async () => {
    const highs = await loadSolver();
    const input = seededNetwork({ seed: 5, observatories: 3, observations: 40, sites: 2, horizonHours: 14, now: new Date("2026-12-10T18:00:00Z") });
    const exact = solveExactly(buildInstance(input), { highs, gap: 0.01 });
    expect(exact.status).toBe("optimal");
    const plan = planNetwork(input);
    expect(plan.objective).toBeGreaterThanOrEqual(0.95 * exact.objective);
    expect(plan.objective).toBeLessThanOrEqual(exact.bound + 1e-6);
  });
});

/** Priority 5 at `obs-a` alone, darkness waived, ending by `fixedTimeEnd` when given. */
const observationAtA = (id: string, fixedTimeEnd: string | null = null): NetworkObservation => ({
  id,
  priority: 5,
  candidateObservatoryIds: ["obs-a"],
  filters: [],
  doc: { projectId: "p", targets: [{ ra: 10, dec: 20, exposures: [] }], constraints: {}, fixedTimeStart: null, fixedTimeEnd, bypassDarkness: true },
});

describe("the MILP's model holds every plan, so its bound bounds the plan", () => {
  it("counts runs packed between points: three 17-minute runs in 55 minutes, which starts on points alone cannot hold", async () => {
    const highs = await loadSolver();
    const now = new Date("2026-12-10T12:00:00Z");
    const observation = (id: string) => observationAtA(id, new Date(now.getTime() + 55 * MINUTE).toISOString());
    const input: NetworkPlanInput = {
      now,
      horizonHours: 2,
      observatories: [{ id: "obs-a", model: null, filters: null, busyUntil: null }],
      observations: [observation("first"), observation("second"), observation("third")],
      durationMs: () => 17 * MINUTE,
    };
    const instance = buildInstance(input);
    const plan = planNetwork(input);
    expect(plan.blocks).toHaveLength(3);
    // On points alone (0, 20, 40 would end after the window) two fit: that model's optimum lies below the plan.
    expect(solveExactly(instance, { highs, gap: 0, pointsOnly: true }).objective).toBeLessThan(plan.objective);
    const exact = solveExactly(instance, { highs, gap: 0 });
    expect(exact.bound).toBeGreaterThanOrEqual(plan.objective - 1e-6);
    expect(exact.objective).toBeCloseTo(plan.objective, 6);
    expect(planInModel(instance, timeIndexedModel(instance), plan.blocks)).toMatchObject({ outside: [], brokenRows: 0, betweenPoints: 2 });
  });

  it("takes every run of plans on seeded networks as one of its starts, and the plans break none of its rows", () => {
    for (const seed of [11, 12, 21]) {
      const input = seededNetwork({ seed, observatories: 4, observations: 60, horizonHours: 30 });
      const instance = buildInstance(input);
      const plan = planNetwork(input);
      const inModel = planInModel(instance, timeIndexedModel(instance), plan.blocks);
      expect(inModel, `seed ${seed}`).toMatchObject({ outside: [], brokenRows: 0 });
      expect(inModel.onPoints + inModel.betweenPoints).toBe(plan.blocks.length);
      expect(inModel.objective).toBeCloseTo(plan.objective, 6);
      // The plan packs runs between points, which starts on points alone do not hold.
      expect(planInModel(instance, timeIndexedModel(instance, { pointsOnly: true }), plan.blocks).outside.length, `seed ${seed}`).toBeGreaterThan(0);
    }
  });
});

describe("the network plan against dispatch run forward", () => {
  it("is never worth less than today's dispatch on seeded networks", () => {
    for (const seed of [11, 12, 13]) {
      const input = seededNetwork({ seed, observatories: 4, observations: 60, horizonHours: 30 });
      const plan = planNetwork(input);
      expect(plan.objective, `seed ${seed}`).toBeGreaterThanOrEqual(objectiveOf(runNetworkDispatchForward(input)));
      expect(plan.objective).toBeCloseTo(objectiveOf(plan.blocks), 6);
    }
  });
});

describe("the network plan's starts", () => {
  it("starts work as early as a plan worth as much can: what fits from now starts now, back to back", () => {
    const now = new Date("2026-12-10T12:00:00Z");
    // No location: only windows hold an observation, so every start from now on is as good as another.
    const observation = (id: string, priority: number): NetworkObservation => ({
      id,
      priority,
      candidateObservatoryIds: ["obs-a"],
      filters: [],
      doc: { projectId: "p", targets: [{ ra: 10, dec: 20, exposures: [] }], constraints: {}, fixedTimeStart: null, fixedTimeEnd: null, bypassDarkness: true },
    });
    const input: NetworkPlanInput = {
      now,
      horizonHours: 6,
      observatories: [{ id: "obs-a", model: null, filters: null, busyUntil: null }],
      observations: [observation("first", 9), observation("second", 5), observation("third", 1)],
      durationMs: () => 17 * MINUTE,
    };
    const plan = planNetwork(input);
    expect(plan.blocks.map((block) => block.observation.id)).toEqual(["first", "second", "third"]);
    expect(plan.blocks.map((block) => (block.start.getTime() - now.getTime()) / MINUTE)).toEqual([0, 17, 34]);
  });

  it("starts a lone observation now", () => {
    const now = new Date("2026-12-10T12:03:27Z");
    const input: NetworkPlanInput = {
      now,
      observatories: [{ id: "obs-a", model: null, filters: null, busyUntil: null }],
      observations: [observationAtA("lone")],
      durationMs: () => 5 * MINUTE,
    };
    expect(planNetwork(input).blocks.map((block) => block.start)).toEqual([now]);
  });

  it("after a change, starts as early as they hold the runs the plan before held back behind work that went", () => {
    const now = new Date("2026-12-10T12:00:00Z");
    const fields = (id: string, priority: number, fixedTimeEnd: string | null = null) => ({ ...observationAtA(id, fixedTimeEnd), priority });
    // Dispatch would run `big` first and lose `urgent`, which must end within 20 minutes: the plan runs `urgent` first.
    const [urgent, big, second] = [fields("urgent", 8, new Date(now.getTime() + 20 * MINUTE).toISOString()), fields("big", 9), fields("second", 5)];
    const input: NetworkPlanInput = {
      now,
      horizonHours: 6,
      observatories: [{ id: "obs-a", model: null, filters: null, busyUntil: null }],
      observations: [big, urgent, second],
      durationMs: () => 17 * MINUTE,
    };
    // The plan before had a run from 17 to 40 minutes on, since gone (cancelled, say).
    const at = (observation: NetworkObservation, minutes: number) => ({
      observation,
      observatoryId: "obs-a",
      run: 0,
      start: new Date(now.getTime() + minutes * MINUTE),
      end: new Date(now.getTime() + (minutes + 17) * MINUTE),
    });
    const plan = planNetwork(input, { previous: { blocks: [at(urgent, 0), at(big, 40), at(second, 57)] } });
    expect(plan.blocks.map((block) => [block.observation.id, (block.start.getTime() - now.getTime()) / MINUTE])).toEqual([
      ["urgent", 0],
      ["big", 17],
      ["second", 34],
    ]);
  });
});

describe("the bucket LP bounds the optimum of the plan's model (ADR 0047)", () => {
  it("lies at or above the brute-force optimum, the MILP of starts on points and the plan on small networks it can enumerate", async () => {
    const highs = await loadSolver();
    for (let seed = 1; seed <= 8; seed += 1) {
      const input = smallNetwork(seed);
      const instance = buildInstance(input);
      const { bound, lpObjective } = bucketBound(instance, { highs, model: timeIndexedModel(instance) });
      expect(bound, `seed ${seed}`).toBeGreaterThanOrEqual(bruteForceOptimum(instance) - 1e-6);
      expect(bound, `seed ${seed}`).toBeGreaterThanOrEqual(planNetwork(input).objective - 1e-6);
      expect(bound, `seed ${seed}`).toBeGreaterThanOrEqual(solveExactly(instance, { highs, gap: 0, pointsOnly: true }).objective - 1e-6);
      // The dual's objective is the LP's optimum (up to the solver's tolerances).
      expect(Math.abs(bound - lpObjective), `seed ${seed}`).toBeLessThan(1e-6 * bound + 1e-6);
    }
  });

  it("holds every plan on seeded networks: each run inside the spans of its job there, no row broken, the plan's objective", async () => {
    const highs = await loadSolver();
    for (const seed of [11, 12, 21]) {
      const input = seededNetwork({ seed, observatories: 4, observations: 60, horizonHours: 30 });
      const instance = buildInstance(input);
      const model = timeIndexedModel(instance);
      const plan = planNetwork(input);
      const inBuckets = planInBuckets(instance, bucketModel(instance, model, 15), plan.blocks);
      expect(inBuckets, `seed ${seed}`).toMatchObject({ outside: [], brokenRows: 0 });
      expect(inBuckets.objective).toBeCloseTo(plan.objective, 6);
      expect(bucketBound(instance, { highs, model }).bound, `seed ${seed}`).toBeGreaterThanOrEqual(plan.objective - 1e-6);
    }
  });

  it("counts real minutes: runs packed between points reach it, and a fourth run that does not fit stays out of the plan, not of the bound", async () => {
    const highs = await loadSolver();
    const now = new Date("2026-12-10T12:00:00Z");
    const observation = (id: string) => observationAtA(id, new Date(now.getTime() + 55 * MINUTE).toISOString());
    const input = (ids: string[]): NetworkPlanInput => ({
      now,
      horizonHours: 2,
      observatories: [{ id: "obs-a", model: null, filters: null, busyUntil: null }],
      observations: ids.map(observation),
      durationMs: () => 17 * MINUTE,
    });
    const three = input(["first", "second", "third"]);
    const threeInstance = buildInstance(three);
    // Three runs of 17 minutes fill 51 of the 55: the bound is the plan.
    expect(bucketBound(threeInstance, { highs, model: timeIndexedModel(threeInstance) }).bound).toBeCloseTo(planNetwork(three).objective, 3);
    const four = input(["first", "second", "third", "fourth"]);
    const fourInstance = buildInstance(four);
    // Four do not fit; the LP fills the 55 minutes with parts of them: 55 minutes at priority 5.
    expect(planNetwork(four).blocks).toHaveLength(3);
    expect(bucketBound(fourInstance, { highs, model: timeIndexedModel(fourInstance) }).bound).toBeCloseTo(5 * 55 * 60, 3);
  });
});
