import type { NetworkObservation } from "@meridian/scheduler";
import { describe, expect, it } from "vitest";
import { keptBetweenPlans, seedFromPlanInForce } from "./warm-start";

const HOUR = 3_600_000;

const pending = (count: number, prefix = "obn"): NetworkObservation[] =>
  Array.from({ length: count }, (_, index) => ({
    id: `${prefix}_${index}`,
    priority: 5,
    candidateObservatoryIds: ["obs_a"],
    filters: [],
    doc: { projectId: "prj_a", targets: [], constraints: {}, fixedTimeStart: null, fixedTimeEnd: null, bypassDarkness: false },
  }));

/** The plan in force as stored, knowing these observations: the first half of them planned at obs_a, the rest left out. */
function inForceKnowing(observations: ReadonlyArray<NetworkObservation>) {
  const half = Math.ceil(observations.length / 2);
  return {
    slots: observations.slice(0, half).map((observation, index) => ({
      observationId: observation.id,
      observatoryId: "obs_a",
      name: observation.id,
      priority: observation.priority,
      run: 0,
      start: new Date(Date.UTC(2026, 11, 10, 20) + index * HOUR).toISOString(),
      end: new Date(Date.UTC(2026, 11, 10, 20, 30) + index * HOUR).toISOString(),
    })),
    unscheduled: observations.slice(half).map((observation) => ({ observationId: observation.id, reasons: [] })),
  };
}

/** Pending observations of which `known` are known to the plan in force and `added` are new to it. */
function seedOf(known: number, added: number) {
  const stillThere = pending(known);
  return seedFromPlanInForce({ stored: inForceKnowing(stillThere), observations: [...pending(added, "obn_new"), ...stillThere] });
}

describe("the plan in force as the seed of the next plan (issue 60 point 7, ADR 0046)", () => {
  it("seeds the next plan while at most a tenth of the pending observations are new to it: their runs where it put them", () => {
    const seed = seedOf(180, 20);
    expect(seed?.blocks).toHaveLength(90);
    expect(seed!.blocks[0]).toMatchObject({ observatoryId: "obs_a", run: 0, start: new Date(Date.UTC(2026, 11, 10, 20)) });
    expect(seed!.blocks.map((block) => block.observation.id)).toEqual(pending(90).map((observation) => observation.id));
  });

  it("plans from scratch when more than a tenth of the pending observations are new to it (a bulk submission)", () => {
    expect(seedOf(179, 21)).toBeUndefined();
    expect(seedOf(100, 200)).toBeUndefined();
  });

  it("seeds with up to ten new observations however few are pending, and plans from scratch past ten", () => {
    expect(seedOf(40, 10)?.blocks).toHaveLength(20);
    expect(seedOf(40, 11)).toBeUndefined();
  });

  it("plans from scratch without a plan in force", () => {
    expect(seedFromPlanInForce({ stored: null, observations: pending(5) })).toBeUndefined();
  });
});

describe("what a process keeps between plans", () => {
  // Far from any moment another test file plans at (files share a worker's modules): the first call starts anew.
  const since = new Date("2100-01-01T00:00:00Z").getTime();
  const doc = () => ({ projectId: "prj_a", targets: [{ ra: 10, dec: 20 }] });

  it("is the same for 24 hours, then let go: a new cache, and no document kept from before", () => {
    const kept = keptBetweenPlans(new Date(since));
    kept.beginReading();
    const first = kept.doc("obn_a", doc());
    expect(keptBetweenPlans(new Date(since + 6 * HOUR))).toBe(kept);
    expect(keptBetweenPlans(new Date(since + 24 * HOUR))).toBe(kept);
    kept.beginReading();
    // The same reading an hour on is the same object (the planner's cache is keyed by it).
    expect(kept.doc("obn_a", doc())).toBe(first);

    const dayOn = keptBetweenPlans(new Date(since + 24 * HOUR + 60_000));
    expect(dayOn).not.toBe(kept);
    expect(dayOn.cache).not.toBe(kept.cache);
    expect(dayOn.since).toBe(since + 24 * HOUR + 60_000);
    dayOn.beginReading();
    expect(dayOn.doc("obn_a", doc())).not.toBe(first);
  });

  it("is let go when the clock goes back", () => {
    const kept = keptBetweenPlans(new Date(since + 30 * 24 * HOUR));
    expect(keptBetweenPlans(new Date(kept.since - 60_000))).not.toBe(kept);
  });
});
