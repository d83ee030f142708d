import { describe, expect, it } from "vitest";
import { skyModel, type SkyModel } from "../sky-model";
import type { NetworkPlan } from "./inputs";
import { NetworkPlanCache } from "./instance";
import { planNetwork } from "./plan";
import { seededNetwork, SITES, type SeededNetwork, type SeededObservation } from "./seeded-network";

const HOUR = 3_600_000;

/** What a plan says, without the observations' documents: its runs and its reasons. */
function summary(plan: NetworkPlan<SeededObservation>) {
  return {
    objective: plan.objective,
    blocks: plan.blocks.map((block) => `${block.observation.id} ${block.run} ${block.observatoryId} ${block.start.toISOString()} ${block.end.toISOString()}`),
    unscheduled: plan.unscheduled.map(({ observation, reasons }) => ({ id: observation.id, reasons })),
  };
}

const network = () => seededNetwork({ seed: 41, observatories: 4, observations: 40, horizonHours: 24 });

/** Each change of an input that something kept in the cache was computed from. */
const changes: Record<string, (input: SeededNetwork) => SeededNetwork> = {
  "an observation edited (a new document)": (input) => {
    const [first, ...rest] = input.observations;
    const edited = { ...first!, doc: { ...first!.doc, constraints: { ...first!.doc.constraints, minAltitude: 60 } } };
    return { ...input, observations: [edited, ...rest] };
  },
  "an observatory moved to another site (a new sky model)": (input) => ({
    ...input,
    observatories: input.observatories.map((observatory, index) =>
      index === 0 ? { ...observatory, model: skyModel({ location: SITES[2].location }) } : observatory,
    ),
  }),
  "an observatory busy for longer": (input) => ({
    ...input,
    observatories: input.observatories.map((observatory, index) =>
      index === 1 ? { ...observatory, busyUntil: new Date(input.now.getTime() + 15 * HOUR) } : observatory,
    ),
  }),
  "an observatory unavailable": (input) => ({
    ...input,
    observatories: input.observatories.map((observatory, index) => (index === 2 ? { ...observatory, unavailable: "OFFLINE" as const } : observatory)),
  }),
  "longer estimates at one observatory": (input) => ({
    ...input,
    durationMs: (observation, observatoryId) => input.durationMs(observation, observatoryId) + (observatoryId === "obs_01" ? 7 * 60_000 : 0),
  }),
  "an allocation's period starting later": (input) => ({
    ...input,
    allocations: input.allocations!.map((allocation, index) =>
      index === 0 ? { ...allocation, periodStart: new Date(input.now.getTime() + 10 * HOUR) } : allocation,
    ),
  }),
  "allocations used up": (input) => ({ ...input, allocations: input.allocations!.map((allocation) => ({ ...allocation, leftMs: 0 })) }),
  "the plan made an hour later": (input) => ({ ...input, now: new Date(input.now.getTime() + HOUR) }),
};

describe("the cache a plan keeps for the next one", () => {
  it("gives the same plan as none when nothing changed", () => {
    const input = network();
    const cache = new NetworkPlanCache();
    const first = planNetwork(input, { cache });
    expect(summary(planNetwork(input, { cache }))).toEqual(summary(first));
    expect(summary(first)).toEqual(summary(planNetwork(input)));
  });

  for (const [name, change] of Object.entries(changes)) {
    it(`gives the plan made without it after ${name}`, () => {
      const input = network();
      const cache = new NetworkPlanCache();
      const before = planNetwork(input, { cache });
      const changed = change(input);
      const fresh = planNetwork(changed);
      expect(summary(fresh)).not.toEqual(summary(before));
      expect(summary(planNetwork(changed, { cache }))).toEqual(summary(fresh));
    });
  }

  it("gives a plan made a minute later the plan made without it, computing again only what reads the moment", () => {
    // Seven minutes past the hour: neither plan's horizon reaches a new stretch of the grid.
    const input = { ...network(), now: new Date("2026-12-10T12:07:00Z") };
    const later = { ...input, now: new Date("2026-12-10T12:08:00Z") };
    const cache = new NetworkPlanCache();
    planNetwork(input, { cache });
    const first = cache.computed;
    const warm = planNetwork(later, { cache });
    expect(summary(warm)).toEqual(summary(planNetwork(later)));
    // The starts on the grid and whether a run holds from a moment are kept; the first free minute's starts and the reasons are not.
    expect(cache.computed - first).toBeLessThan(first / 4);
  });

  it("decides the stretch of the grid its horizon ends in only as far as the horizon: nothing asked of the sky past the runs that start by it", () => {
    // At noon the horizon ends on a stretch's boundary; a minute later it reaches one point into the next stretch.
    const input = network();
    let latest = -Infinity;
    const watched = (model: SkyModel): SkyModel => ({
      ...model,
      atMs: (ms) => ((latest = Math.max(latest, ms)), model.atMs(ms)),
      at: (moment) => ((latest = Math.max(latest, moment.getTime())), model.at(moment)),
    });
    const observed = {
      ...input,
      observatories: input.observatories.map((observatory) => ({ ...observatory, model: observatory.model && watched(observatory.model) })),
    };
    const longestRun = Math.max(...input.observations.flatMap((item) => item.candidateObservatoryIds.map((id) => input.durationMs(item, id))));
    const cache = new NetworkPlanCache();
    planNetwork(observed, { cache });
    const later = { ...observed, now: new Date(input.now.getTime() + 60_000) };
    latest = -Infinity;
    const warm = planNetwork(later, { cache });
    expect(latest - warm.horizonEnd.getTime()).toBeLessThanOrEqual(longestRun + 60_000);
    expect(summary(warm)).toEqual(summary(planNetwork(later)));
  });

  it("holds no more than what the last two plans used", () => {
    const input = network();
    const cache = new NetworkPlanCache();
    planNetwork(input, { cache });
    const first = cache.computed;
    // A day on: nothing of the first plan's horizon is used, so nothing of it is kept.
    const dayOn = { ...input, now: new Date(input.now.getTime() + 24 * HOUR) };
    planNetwork(dayOn, { cache });
    planNetwork(dayOn, { cache });
    const again = cache.computed;
    planNetwork(input, { cache });
    expect(cache.computed - again).toBe(first);
  });
});
