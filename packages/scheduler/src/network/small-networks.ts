/**
 * Small networks for the planner's tests and its bounds' (plan.test.ts, lagrangian-bound.test.ts): networks small enough to
 * enumerate, the enumeration itself, and an observation pinned to one observatory without a sky.
 */
import type { NetworkObservation, NetworkPlanInput } from "./inputs";
import type { Instance } from "./instance";
import { seededRandom } from "./random";
import { seededNetwork, type SeededObservation } from "./seeded-network";

const MINUTE = 60_000;

/**
 * The optimum of the plan's model by enumeration: every subset of jobs, every choice of site for
 * each, and every order of the jobs at each observatory, each placed at its earliest start after
 * the one before (for a fixed order that start is as early as any plan can give it, so a set that
 * fits in some order is found). Small instances only: no cadences.
 */
export function bruteForceOptimum(instance: Instance): number {
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
export function smallNetwork(seed: number): NetworkPlanInput<SeededObservation> {
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

/** Priority 5 at `obs-a` alone, darkness waived, ending by `fixedTimeEnd` when given. */
export const observationAtA = (id: string, fixedTimeEnd: string | null = null): NetworkObservation => ({
  id,
  priority: 5,
  candidateObservatoryIds: ["obs-a"],
  filters: [],
  doc: { projectId: "p", targets: [{ ra: 10, dec: 20, exposures: [] }], constraints: {}, fixedTimeStart: null, fixedTimeEnd, bypassDarkness: true },
});
