import { closestReasons } from "../plan";
import { explainOwnReasons, reasonsItNeverRuns, type QueueBlock } from "../queue";
import { nightSearch, runNetworkDispatchForward } from "./dispatch-forward";
import { improveSchedule, planHeuristically } from "./heuristic";
import type { NetworkBlock, NetworkObservation, NetworkPlan, NetworkPlanInput, NetworkReason } from "./inputs";
import { buildInstance, fitsAt, NetworkPlanCache, runsWhole, startsAt, type Budget, type Instance, type Job } from "./instance";
import type { Assignment, Schedule } from "./schedule";

/** Σ priority × (end − start) in seconds: the contract's objective. */
export const objectiveOf = (blocks: ReadonlyArray<NetworkBlock>) =>
  blocks.reduce((total, block) => total + (block.observation.priority * (block.end.getTime() - block.start.getTime())) / 1000, 0);

/** The schedule's runs as blocks, in order of start, then observatory. */
export function blocksOf<Observation extends NetworkObservation>(instance: Instance<Observation>, schedule: Schedule): NetworkBlock<Observation>[] {
  return schedule
    .assignments()
    .map((assignment) => {
      const job = instance.jobs[assignment.job]!;
      const site = job.sites[assignment.site]!;
      return {
        observation: job.observation,
        observatoryId: instance.observatories[site.observatory]!.id,
        run: job.run,
        start: new Date(assignment.start),
        end: new Date(assignment.start + site.durationMs),
      };
    })
    .sort((a, b) => a.start.getTime() - b.start.getTime() || (a.observatoryId < b.observatoryId ? -1 : 1));
}

/** Blocks (a previous plan's, dispatch run forward's) as assignments of this instance, where each still runs whole. */
function seedFromBlocks<Observation extends NetworkObservation>(
  instance: Instance<Observation>,
  blocks: ReadonlyArray<NetworkBlock<Observation>>,
): Assignment[] {
  const jobOf = new Map(instance.jobs.map((job) => [`${job.observation.id} ${job.run}`, job]));
  const seed: Assignment[] = [];
  for (const block of blocks) {
    const job = jobOf.get(`${block.observation.id} ${block.run}`);
    if (!job) continue;
    const site = job.sites.findIndex((candidate) => instance.observatories[candidate.observatory]!.id === block.observatoryId);
    const start = block.start.getTime();
    if (site >= 0 && job.sites[site]!.durationMs === block.end.getTime() - start && fitsAt(instance, job, site, start))
      seed.push({ job: job.index, site, start });
  }
  return seed;
}

/**
 * The network plan (docs/api-contract.md, "Network scheduling"; the model: docs/decisions, "the
 * network plan"): for each pending observation at most one candidate observatory and start (a
 * monitoring one a run per cadence step) over the next PLAN_HORIZON_HOURS, every constraint
 * dispatch checks held for its whole estimate there, at most one run at a time per observatory
 * after what it has under way, allocations charged across the nights, maximizing Σ priority ×
 * estimated seconds. The heuristic (`planHeuristically`) runs twice, from nothing and from
 * dispatch run forward over the network (`runNetworkDispatchForward`), and the first is improved further
 * (`improveSchedule`, ADR 0051); the plan is whichever of these and dispatch run forward is worth
 * most, so never less than today's dispatch. After a change, `previous` (the
 * plan before it, or only its runs: each that no longer holds whole where it was, is no longer
 * pending, or finds its observatory busy, away or taken drops out) seeds the heuristic instead, its
 * runs start as early as they hold, and the plan is the better of that and dispatch run forward;
 * `cache` (kept between plans) spares computing again what did not change.
 */
export function planNetwork<Observation extends NetworkObservation>(
  input: NetworkPlanInput<Observation>,
  options: { previous?: Pick<NetworkPlan<Observation>, "blocks">; cache?: NetworkPlanCache } = {},
): NetworkPlan<Observation> {
  const instance = buildInstance(input, options.cache);
  const forward = runNetworkDispatchForward(input, { cache: instance.cache }).filter((block) => runsWhole(instance, block));
  const candidates = options.previous
    ? [blocksOf(instance, planHeuristically(instance, { seed: seedFromBlocks(instance, options.previous.blocks), seedIsAPlan: true })), forward]
    : improvedFromScratch(instance, forward);
  return planOf(
    instance,
    candidates.reduce((best, blocks) => (isBetter(blocks, best) ? blocks : best)),
  );
}

/**
 * From scratch: the heuristic from nothing and from dispatch run forward, the one from nothing improved further
 * (`improveSchedule`: improving both costs twice the time for little more), and dispatch run forward are the candidates.
 */
function improvedFromScratch<Observation extends NetworkObservation>(
  instance: Instance<Observation>,
  forward: NetworkBlock<Observation>[],
): NetworkBlock<Observation>[][] {
  const fromNothing = planHeuristically(instance);
  const fromForward = planHeuristically(instance, { seed: seedFromBlocks(instance, forward) });
  const candidates = [blocksOf(instance, fromNothing), blocksOf(instance, fromForward), forward];
  improveSchedule(fromNothing);
  // After the plans as they were: of two plans worth the same and starting as early, the first is kept.
  return [...candidates, blocksOf(instance, fromNothing)];
}

/** Σ start over the blocks, in minutes: of two plans worth the same, the one that starts its work earlier. */
const startsOf = (blocks: ReadonlyArray<NetworkBlock>) => blocks.reduce((total, block) => total + block.start.getTime() / 60_000, 0);

/**
 * Worth more, or worth the same and starting its work earlier in all (then dispatch, which follows
 * the plan, never holds back an observation that could start now for no gain: a lone observation at
 * a free observatory starts at once, as dispatch always did).
 */
function isBetter(blocks: ReadonlyArray<NetworkBlock>, than: ReadonlyArray<NetworkBlock>): boolean {
  const [worth, thanWorth] = [objectiveOf(blocks), objectiveOf(than)];
  if (Math.abs(worth - thanWorth) > 1e-6) return worth > thanWorth;
  return blocks.length === than.length && startsOf(blocks) < startsOf(than) - 1e-6;
}

/** A plan from its blocks: the objective, and each observation left out with its reason at each candidate. */
function planOf<Observation extends NetworkObservation>(instance: Instance<Observation>, blocks: NetworkBlock<Observation>[]): NetworkPlan<Observation> {
  const planned = new Set(blocks.map((block) => block.observation.id));
  const used = new Map<string, number>();
  for (const block of blocks) {
    const key = `${block.observatoryId} ${block.observation.doc.projectId}`;
    used.set(key, (used.get(key) ?? 0) + block.end.getTime() - block.start.getTime());
  }
  const firstJobOf = new Map<Observation, Job<Observation>>();
  for (const job of instance.jobs) if (job.run === 0) firstJobOf.set(job.observation, job);
  const unscheduled = instance.input.observations
    .filter((observation) => !planned.has(observation.id))
    .map((observation) => ({ observation, reasons: reasonsAtCandidates(instance, firstJobOf.get(observation)!, used) }));
  return { start: new Date(instance.start), horizonEnd: new Date(instance.horizonEnd), objective: objectiveOf(blocks), blocks, unscheduled };
}

/**
 * Why an observation has no run at each of its candidates, the first reason in the contract's
 * order: what keeps it from ever running there, its own reason at the moment it came closest
 * (with when that ends), ALLOCATION_EXHAUSTED (also when the plan's runs spend what its project
 * has left there), FILTER_MISSING, the observatory unavailable, and OBSERVATORY_BUSY when it could
 * have run but the plan gave the time to work worth more.
 */
function reasonsAtCandidates<Observation extends NetworkObservation>(
  instance: Instance<Observation>,
  job: Job<Observation>,
  used: ReadonlyMap<string, number>,
): NetworkReason[] {
  const now = new Date(instance.start);
  const { observation } = job;
  return observation.candidateObservatoryIds.flatMap((observatoryId): NetworkReason[] => {
    const index = instance.observatories.findIndex((observatory) => observatory.id === observatoryId);
    if (index < 0) return [];
    const observatory = instance.observatories[index]!;
    const model = observatory.model;
    const [never] = reasonsItNeverRuns({ doc: observation.doc, model, now });
    // Its details (the highest altitude, a window in daylight, a limit crossed) go with the reason: the night plan shows them.
    if (never) return [{ ...detailsOf(never), observatoryId, code: never.code, until: never.until }];
    if (instance.filterMissing.get(observation.id)?.has(observatoryId)) return [{ observatoryId, code: "FILTER_MISSING", until: null }];
    if (observatory.unavailable) return [{ observatoryId, code: observatory.unavailable, until: null }];
    const site = job.sites.find((candidate) => candidate.observatory === index)!;
    const budget = site.budget >= 0 ? instance.budgets[site.budget]! : null;
    const spent = budget && budget.leftMs - (used.get(`${observatoryId} ${observation.doc.projectId}`) ?? 0) < site.durationMs;
    if (site.starts.length > 0) return [{ observatoryId, code: spent ? "ALLOCATION_EXHAUSTED" : "OBSERVATORY_BUSY", until: null }];
    // With no start there, the reason reads only the sky, the document, the estimate, the points and the allocation's period.
    const points = instance.points[index]!;
    const key = [
      "reason",
      observatoryId,
      instance.cache.modelName(model),
      site.durationMs,
      instance.start,
      instance.horizonEnd,
      points[0],
      points.length,
      budget?.from,
    ];
    const reason = instance.cache.of(observation.doc, key.join(" "), () =>
      reasonWithoutStarts(instance, { observation, index, durationMs: site.durationMs, budget }),
    );
    return [{ ...reason }];
  });
}

/** Why an observation has no start at all at a candidate: its allocation, or its own reason where it came closest. */
function reasonWithoutStarts<Observation extends NetworkObservation>(
  instance: Instance<Observation>,
  options: { observation: Observation; index: number; durationMs: number; budget: Budget | null },
): NetworkReason {
  const { observation, index, durationMs, budget } = options;
  const now = new Date(instance.start);
  const observatory = instance.observatories[index]!;
  const observatoryId = observatory.id;
  const model = observatory.model;
  if (budget) {
    const waiting = budget.from > instance.start ? new Date(budget.from) : null;
    const withoutAllocation = startsAt({ observation, observatory, points: instance.points[index]!, durationMs, cache: instance.cache });
    if (withoutAllocation.length > 0) return { observatoryId, code: "ALLOCATION_EXHAUSTED", until: waiting };
  }
  const reasons = closestReasons({ doc: observation.doc, model, durationMs, fromMs: instance.start, endMs: instance.horizonEnd });
  // When it may run next is searched night by night; a night's search reads neither the moment nor the horizon, and is kept.
  const spanSearch = nightSearch(instance.cache, observation.doc, observatory, durationMs);
  const [first] = explainOwnReasons({ doc: observation.doc, reasons, model, now, durationMs, spanSearch });
  return first ? { ...detailsOf(first), observatoryId, code: first.code, until: first.until } : { observatoryId, code: "OBSERVATORY_BUSY", until: null };
}

/** A queue reason's details that concern the observation itself (not PLANNED_ELSEWHERE's observatory). */
const detailsOf = ({ limit, at, highestAltitude, windowInDaylight }: QueueBlock) => ({
  ...(limit ? { limit } : {}),
  ...(at ? { at } : {}),
  ...(highestAltitude !== undefined ? { highestAltitude } : {}),
  ...(windowInDaylight ? { windowInDaylight } : {}),
});

/**
 * Why the plan holds back an observation that could start at the observatory now: PLANNED_LATER
 * (until its planned start there) or PLANNED_ELSEWHERE (at the observatory it is planned at). Null
 * when the plan starts it there now, or does not plan it at all.
 */
export function plannedReason(plan: NetworkPlan, options: { observationId: string; observatoryId: string; now: Date }): NetworkReason | null {
  const block = plan.blocks
    .filter((candidate) => candidate.observation.id === options.observationId && candidate.end > options.now)
    .sort((a, b) => a.start.getTime() - b.start.getTime())[0];
  if (!block) return null;
  if (block.observatoryId !== options.observatoryId) {
    return { observatoryId: options.observatoryId, code: "PLANNED_ELSEWHERE", until: block.start, plannedAt: block.observatoryId };
  }
  return block.start > options.now ? { observatoryId: options.observatoryId, code: "PLANNED_LATER", until: block.start } : null;
}
