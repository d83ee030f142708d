import { DISPATCH_WINDOW } from "../plan";
import { ceilToMinute, isEligibleAt, nextEligibleMoment } from "../queue";
import { PLAN_HORIZON_HOURS, type NetworkBlock, type NetworkObservation, type NetworkPlanInput } from "./inputs";
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
export function runNetworkDispatchForward<Observation extends NetworkObservation>(input: NetworkPlanInput<Observation>): NetworkBlock<Observation>[] {
  const startMs = input.now.getTime();
  const endMs = startMs + (input.horizonHours ?? PLAN_HORIZON_HOURS) * 3_600_000;
  const observatories = input.observatories.filter((observatory) => !observatory.unavailable);
  const clocks = observatories.map((observatory) => Math.max(startMs, observatory.busyUntil?.getTime() ?? startMs));
  const left = new Map(
    (input.allocations ?? []).map((allocation) => [`${allocation.observatoryId} ${allocation.projectId}`, { ...allocation, leftMs: allocation.leftMs }]),
  );
  const waiting: Waiting<Observation>[] = input.observations.map((observation) => ({ observation, doc: observation.doc, runs: 0 }));
  const order = new Map(input.observations.map((observation, index) => [observation, index]));
  const notBefore = new Map<string, number>();
  const blocks: NetworkBlock<Observation>[] = [];

  const allowed = (item: Waiting<Observation>, observatoryId: string, at: number, durationMs: number) => {
    const allocation = left.get(`${observatoryId} ${item.doc.projectId}`);
    return !allocation || (at >= allocation.periodStart.getTime() && at < allocation.periodEnd.getTime() && durationMs <= allocation.leftMs);
  };

  for (;;) {
    let which = -1;
    for (let index = 0; index < observatories.length; index += 1) if (clocks[index]! < endMs && (which < 0 || clocks[index]! < clocks[which]!)) which = index;
    if (which < 0) break;
    const observatory = observatories[which]!;
    const now = clocks[which]!;
    const queue = waiting.filter(
      (item) => item.observation.candidateObservatoryIds.includes(observatory.id) && hasFilters(observatory.filters, item.observation.filters),
    );
    const window = queue.slice(0, DISPATCH_WINDOW);
    const durationOf = (item: Waiting<Observation>) => Math.max(0, input.durationMs(item.observation, observatory.id));
    const key = (item: Waiting<Observation>) => `${item.observation.id} ${item.runs} ${observatory.id}`;
    const chosen = window.find(
      (item) =>
        (notBefore.get(key(item)) ?? now) <= now &&
        allowed(item, observatory.id, now, durationOf(item)) &&
        isEligibleAt({ doc: item.doc, model: observatory.model, ms: now, durationMs: durationOf(item) }),
    );
    if (chosen) {
      const durationMs = durationOf(chosen);
      const allocation = left.get(`${observatory.id} ${chosen.doc.projectId}`);
      if (allocation) allocation.leftMs -= durationMs;
      blocks.push({ observation: chosen.observation, observatoryId: observatory.id, run: chosen.runs, start: new Date(now), end: new Date(now + durationMs) });
      clocks[which] = now + durationMs;
      waiting.splice(waiting.indexOf(chosen), 1);
      const again = nextRun(chosen, now + durationMs);
      if (again) {
        // Back in its place in dispatch order.
        const after = waiting.findIndex((item) => order.get(item.observation)! > order.get(again.observation)!);
        waiting.splice(after < 0 ? waiting.length : after, 0, again);
      }
      continue;
    }
    const from = ceilToMinute(now + 1);
    let next = Infinity;
    for (const item of window) {
      let chance = notBefore.get(key(item));
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
              })
            : null;
        chance = found?.getTime() ?? Infinity;
        notBefore.set(key(item), chance);
      }
      next = Math.min(next, chance);
    }
    clocks[which] = next;
  }
  return blocks;
}

/** A monitoring observation back in the queue after a run that ended at `endMs`, or null when its series is over. */
function nextRun<Observation extends NetworkObservation>(item: Waiting<Observation>, endMs: number): Waiting<Observation> | null {
  const cadence = item.doc.monitoring;
  if (!cadence) return null;
  const count = (item.doc.monitoringRuns?.count ?? 0) + 1;
  if (cadence.maxRuns && count >= cadence.maxRuns) return null;
  return { observation: item.observation, doc: { ...item.doc, monitoringRuns: { count, lastEndedAt: new Date(endMs).toISOString() } }, runs: item.runs + 1 };
}
