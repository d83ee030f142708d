import { describe, expect, it } from "vitest";
import { bucketBound } from "./bound";
import type { NetworkPlanInput } from "./inputs";
import { buildInstance } from "./instance";
import { lagrangianBound } from "./lagrangian-bound";
import { loadSolver, solveExactly, timeIndexedModel } from "./milp";
import { planNetwork } from "./plan";
import { seededNetwork } from "./seeded-network";
import { bruteForceOptimum, observationAtA, smallNetwork } from "./small-networks";
import { planInGraphs, timeGraphs } from "./time-graph";

const MINUTE = 60_000;

describe("the Lagrangian bound bounds the optimum of the plan's model (ADR 0048)", () => {
  it("lies at or above the brute-force optimum and the plan, and at or below the bucket LP, on small networks it can enumerate", async () => {
    const highs = await loadSolver();
    for (let seed = 1; seed <= 8; seed += 1) {
      const input = smallNetwork(seed);
      const instance = buildInstance(input);
      const model = timeIndexedModel(instance);
      const optimum = bruteForceOptimum(instance);
      const { bound, masterObjective } = lagrangianBound(instance, { highs, model });
      expect(bound, `seed ${seed}`).toBeGreaterThanOrEqual(optimum - 1e-6);
      expect(bound, `seed ${seed}`).toBeGreaterThanOrEqual(planNetwork(input).objective - 1e-6);
      // It keeps runs whole, which the bucket LP does not: never looser here (the estimates are whole five minutes).
      expect(bound, `seed ${seed}`).toBeLessThanOrEqual(bucketBound(instance, { highs, model }).bound + 1e-6);
      // Column generation ran to its end: the master's fractional plan meets the bound.
      expect(bound - masterObjective, `seed ${seed}`).toBeLessThanOrEqual(1e-4 * bound + 1e-6);
    }
  });

  it("is a bound after every iteration, however far the multipliers are from the best: from zero, after none to three", async () => {
    const highs = await loadSolver();
    for (let seed = 1; seed <= 4; seed += 1) {
      const instance = buildInstance(smallNetwork(seed));
      const model = timeIndexedModel(instance);
      const optimum = bruteForceOptimum(instance);
      for (const maxIterations of [0, 1, 2, 3]) {
        const { bound } = lagrangianBound(instance, { highs, model, maxIterations });
        expect(bound, `seed ${seed}, ${maxIterations} iterations`).toBeGreaterThanOrEqual(optimum - 1e-6);
      }
    }
  });

  it("holds every plan on seeded networks as paths of its graphs, and lies between the plan and the bucket LP", async () => {
    const highs = await loadSolver();
    for (const seed of [11, 12]) {
      const input = seededNetwork({ seed, observatories: 4, observations: 60, horizonHours: 30 });
      const instance = buildInstance(input);
      const model = timeIndexedModel(instance);
      const plan = planNetwork(input);
      expect(planInGraphs(instance, timeGraphs(instance, model), plan.blocks).outside, `seed ${seed}`).toEqual([]);
      const bucket = bucketBound(instance, { highs, model });
      const { bound } = lagrangianBound(instance, { highs, model, start: bucket.multipliers });
      expect(bound, `seed ${seed}`).toBeGreaterThanOrEqual(plan.objective - 1e-6);
      // From the bucket LP's duals, whose L is at most the bucket bound when every estimate is whole steps (here 5 s).
      expect(bound, `seed ${seed}`).toBeLessThanOrEqual(bucket.bound + 1e-6);
    }
  });

  it("bounds the five-minute model (starts on points alone, ADR 0053): at or above its MILP optimum, below the bound of every start", async () => {
    const highs = await loadSolver();
    for (const seed of [11, 12, 13]) {
      const input = seededNetwork({ seed, observatories: 4, observations: 60, horizonHours: 30 });
      const instance = buildInstance(input);
      const points = timeIndexedModel(instance, { pointsOnly: true });
      const optimum = solveExactly(instance, { highs, gap: 1e-9, model: points });
      expect(optimum.status, `seed ${seed}`).toBe("optimal");
      const { bound } = lagrangianBound(instance, { highs, model: points, start: bucketBound(instance, { highs, model: points }).multipliers });
      expect(bound, `seed ${seed}`).toBeGreaterThanOrEqual(optimum.objective - 1e-6);
      // Fewer starts, fewer paths: never above the bound over every start the plan may take.
      const every = timeIndexedModel(instance);
      expect(bound, `seed ${seed}`).toBeLessThanOrEqual(lagrangianBound(instance, { highs, model: every }).bound + 1e-6);
    }
  });

  it("keeps runs whole: four 17-minute runs in 55 minutes are worth three, where the bucket LP counts the 55 minutes", async () => {
    const highs = await loadSolver();
    const now = new Date("2026-12-10T12:00:00Z");
    const fixedTimeEnd = new Date(now.getTime() + 55 * MINUTE).toISOString();
    const input: NetworkPlanInput = {
      now,
      horizonHours: 2,
      observatories: [{ id: "obs-a", model: null, filters: null, busyUntil: null }],
      observations: ["first", "second", "third", "fourth"].map((id) => observationAtA(id, fixedTimeEnd)),
      durationMs: () => 17 * MINUTE,
    };
    const instance = buildInstance(input);
    const model = timeIndexedModel(instance);
    const plan = planNetwork(input);
    expect(plan.blocks).toHaveLength(3);
    // Three runs packed between points (0, 17, 34 minutes) are a path; a fourth fits in no path, whole or not.
    expect(lagrangianBound(instance, { highs, model }).bound).toBeCloseTo(plan.objective, 3);
    expect(bucketBound(instance, { highs, model }).bound).toBeCloseTo(5 * 55 * 60, 3);
  });
});

describe("the time graph", () => {
  it("steps by the greatest common divisor of the estimates and the starts' ends, so packed runs lose nothing to rounding", () => {
    const now = new Date("2026-12-10T12:00:00Z");
    const input: NetworkPlanInput = {
      now,
      horizonHours: 2,
      observatories: [{ id: "obs-a", model: null, filters: null, busyUntil: null }],
      observations: [observationAtA("first")],
      durationMs: () => 17 * MINUTE + 35_000,
    };
    const instance = buildInstance(input);
    expect(timeGraphs(instance, timeIndexedModel(instance)).stepMs).toBe(5_000);
  });
});
