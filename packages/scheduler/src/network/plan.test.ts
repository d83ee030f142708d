import { describe, expect, it } from "vitest";
import { bucketBound, bucketModel, planInBuckets } from "./bound";
import { runNetworkDispatchForward } from "./dispatch-forward";
import type { NetworkObservation, NetworkPlanInput } from "./inputs";
import { buildInstance } from "./instance";
import { loadSolver, planInModel, solveExactly, timeIndexedModel } from "./milp";
import { objectiveOf, planNetwork } from "./plan";
import { seededNetwork } from "./seeded-network";
import { bruteForceOptimum, observationAtA, smallNetwork } from "./small-networks";

const MINUTE = 60_000;

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
