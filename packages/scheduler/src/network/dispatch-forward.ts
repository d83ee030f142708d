import { DISPATCH_WINDOW } from "../plan";
import { twilightSunAltitude } from "@meridian/rules";
import { ALTITUDE_RATE_BOUND, ceilToMinute, darkThrough, isEligibleAt, nextEligibleMoment, REFRACTION_BOUND, windowOf, type SpanSearchKept } from "../queue";
import type { SkyModel } from "../sky-model";
import { PLAN_HORIZON_HOURS, type NetworkBlock, type NetworkObservation, type NetworkObservatory, type NetworkPlanInput } from "./inputs";
import type { NetworkPlanCache } from "./instance";
import { hasFilters } from "../filters";

/** The plan's search for an observation's next chance steps this far, then narrows to the minute (as the night plan's). */
const SEARCH_STEP_MS = 5 * 60_000;

interface Waiting<Observation extends NetworkObservation> {
  observation: Observation;
  /** Its document as dispatch would read it now (a monitoring one's runs counted on as the plan runs them). */
  doc: Observation["doc"];
  runs: number;
}

/**
 * Today's dispatch run forward over the whole network, the baseline the plan must never fall
 * below: whichever observatory is free first takes the first observation in dispatch order that
 * names it, has its filters, fits its project's allocation there and is eligible now
 * (`isEligibleAt`, dispatch's own rule); an observatory with nothing eligible wakes at the next
 * whole minute at which something is. A monitoring observation comes back after each run with
 * that run counted, as it does in the database. Observatories count as connected and safe, except
 * those marked unavailable, where nothing runs.
 */
export function runNetworkDispatchForward<Observation extends NetworkObservation>(
  input: NetworkPlanInput<Observation>,
  options: { cache?: NetworkPlanCache } = {},
): NetworkBlock<Observation>[] {
  const { cache } = options;
  const startMs = input.now.getTime();
  const endMs = startMs + (input.horizonHours ?? PLAN_HORIZON_HOURS) * 3_600_000;
  const observatories = input.observatories.filter((observatory) => !observatory.unavailable);
  const clocks = observatories.map((observatory) => Math.max(startMs, observatory.busyUntil?.getTime() ?? startMs));
  const left = new Map(
    (input.allocations ?? []).map((allocation) => [`${allocation.observatoryId} ${allocation.projectId}`, { ...allocation, leftMs: allocation.leftMs }]),
  );
  const waiting: Waiting<Observation>[] = input.observations.map((observation) => ({ observation, doc: observation.doc, runs: 0 }));
  const order = new Map(input.observations.map((observation, index) => [observation, index]));
  // Each observatory's queue: what waits that names it and has its filters, in dispatch order (kept as items leave and come back).
  const queues = observatories.map((observatory) =>
    waiting.filter((item) => item.observation.candidateObservatoryIds.includes(observatory.id) && hasFilters(observatory.filters, item.observation.filters)),
  );
  // Per observatory, each item's next chance there as last searched (an item is one run of an observation).
  const chances = observatories.map(() => new Map<Waiting<Observation>, number>());
  // Per observatory, until when each item found not eligible there certainly stays so (a bound, never the next chance itself).
  const asleepUntil = observatories.map(() => new Map<Waiting<Observation>, number>());
  const blocks: NetworkBlock<Observation>[] = [];

  // Per observatory, each observation's estimate there and each project's allocation there (looked up once, spent in place).
  const estimates = observatories.map(() => new Map<Observation, number>());
  const allocations = observatories.map(() => new Map<string, ReturnType<typeof left.get>>());
  const allocationAt = (which: number, projectId: string) => {
    const known = allocations[which]!;
    if (!known.has(projectId)) known.set(projectId, left.get(`${observatories[which]!.id} ${projectId}`));
    return known.get(projectId);
  };
  const allowed = (item: Waiting<Observation>, which: number, at: number, durationMs: number) => {
    const allocation = allocationAt(which, item.doc.projectId);
    return !allocation || (at >= allocation.periodStart.getTime() && at < allocation.periodEnd.getTime() && durationMs <= allocation.leftMs);
  };

  for (;;) {
    let which = -1;
    for (let index = 0; index < observatories.length; index += 1) if (clocks[index]! < endMs && (which < 0 || clocks[index]! < clocks[which]!)) which = index;
    if (which < 0) break;
    const observatory = observatories[which]!;
    const now = clocks[which]!;
    const window = queues[which]!.slice(0, DISPATCH_WINDOW);
    const estimated = estimates[which]!;
    const durationOf = (item: Waiting<Observation>) => {
      let durationMs = estimated.get(item.observation);
      if (durationMs === undefined) estimated.set(item.observation, (durationMs = Math.max(0, input.durationMs(item.observation, observatory.id))));
      return durationMs;
    };
    const notBefore = chances[which]!;
    const asleep = asleepUntil[which]!;
    const chosen = window.find((item) => {
      if ((asleep.get(item) ?? now) > now || (notBefore.get(item) ?? now) > now || !allowed(item, which, now, durationOf(item))) return false;
      if (isEligibleAt({ doc: item.doc, model: observatory.model, ms: now, durationMs: durationOf(item) })) return true;
      asleep.set(item, notEligibleBefore({ doc: item.doc, model: observatory.model, ms: now, durationMs: durationOf(item) }));
      return false;
    });
    if (chosen) {
      const durationMs = durationOf(chosen);
      const allocation = allocationAt(which, chosen.doc.projectId);
      if (allocation) allocation.leftMs -= durationMs;
      blocks.push({ observation: chosen.observation, observatoryId: observatory.id, run: chosen.runs, start: new Date(now), end: new Date(now + durationMs) });
      clocks[which] = now + durationMs;
      const again = nextRun(chosen, now + durationMs);
      for (const queue of queues) {
        const at = queue.indexOf(chosen);
        if (at < 0) continue;
        queue.splice(at, 1);
        if (!again) continue;
        // Back in its place in dispatch order.
        const after = queue.findIndex((item) => order.get(item.observation)! > order.get(again.observation)!);
        queue.splice(after < 0 ? queue.length : after, 0, again);
      }
      continue;
    }
    const from = ceilToMinute(now + 1);
    let next = Infinity;
    for (const item of window) {
      let chance = notBefore.get(item);
      if (chance === undefined || chance <= now) {
        const found =
          from < endMs
            ? nextEligibleMoment({
                doc: item.doc,
                model: observatory.model,
                from: new Date(from),
                durationMs: durationOf(item),
                withinMs: endMs - from,
                stepMs: SEARCH_STEP_MS,
                spanSearch: cache && nightSearch(cache, item.doc, observatory, durationOf(item)),
              })
            : null;
        chance = found?.getTime() ?? Infinity;
        notBefore.set(item, chance);
      }
      next = Math.min(next, chance);
    }
    clocks[which] = next;
  }
  return blocks;
}

/**
 * A moment before which an observation not eligible at `ms` is certainly not eligible either, as far as the clock moves
 * on from `ms`: the end of its window passed (never again), its window not yet open, and the time the Sun needs to sink to
 * its twilight or its target to rise to its minimum altitude (less the most refraction adds), at the fastest any body
 * moves in altitude. `ms` itself when none of them holds it back. Dispatch asks `isEligibleAt` again only from then on.
 */
function notEligibleBefore(options: { doc: NetworkObservation["doc"]; model: SkyModel | null; ms: number; durationMs: number }): number {
  const { doc, model, ms, durationMs } = options;
  const window = windowOf(doc);
  if (ms > window.end || ms + durationMs > window.finishBy) return Infinity;
  if (ms < window.start) return window.start;
  if (!model) return ms;
  const sky = model.atMs(ms);
  const sunTooHigh = sky.sunAltitude - twilightSunAltitude[doc.constraints.twilight ?? "astronomical"];
  if (!doc.bypassDarkness && sunTooHigh >= 0) return ms + Math.floor(sunTooHigh / ALTITUDE_RATE_BOUND);
  // The target's altitude is asked only where `isEligibleAt` asked it (its position of date is kept from the first moment asked).
  if (!darkThrough(doc, model, ms, durationMs)) return ms;
  const targetTooLow = (doc.constraints.minAltitude ?? 30) - REFRACTION_BOUND - sky.geometricAltitude(doc.targets[0]!);
  return ms + Math.floor(Math.max(0, targetTooLow) / ALTITUDE_RATE_BOUND);
}

/**
 * Where the searches of a night for an observation's next chance at an observatory are kept between plans: what one
 * finds reads only the document, the sky and the estimate (and the night's first minute and last start, in its key).
 */
export function nightSearch(cache: NetworkPlanCache, doc: object, observatory: NetworkObservatory, durationMs: number): SpanSearchKept {
  const kept = ["night", observatory.id, cache.modelName(observatory.model), durationMs].join(" ");
  return (key, search) => cache.of(doc, `${kept} ${key}`, search);
}

/** A monitoring observation back in the queue after a run that ended at `endMs`, or null when its series is over. */
function nextRun<Observation extends NetworkObservation>(item: Waiting<Observation>, endMs: number): Waiting<Observation> | null {
  const cadence = item.doc.monitoring;
  if (!cadence) return null;
  const count = (item.doc.monitoringRuns?.count ?? 0) + 1;
  if (cadence.maxRuns && count >= cadence.maxRuns) return null;
  return { observation: item.observation, doc: { ...item.doc, monitoringRuns: { count, lastEndedAt: new Date(endMs).toISOString() } }, runs: item.runs + 1 };
}
