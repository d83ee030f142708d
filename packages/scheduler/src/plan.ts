import { filtersOf, hasFilters } from "./filters";
import type { Schedulable, SchedulingDoc } from "./inputs";
import {
  ceilToMinute,
  explainOwnReasons,
  isEligibleAt,
  nextEligibleMoment,
  observationReasonsAt,
  ownReasonCount,
  reasonsItNeverRuns,
  type QueueBlock,
} from "./queue";
import type { SkyModel } from "./sky-model";

/**
 * How many waiting observations dispatch looks at, in its order (beyond these the queue is not its
 * concern tonight); the plan looks at the same window as it moves on.
 */
export const DISPATCH_WINDOW = 500;
/** The plan's search for an observation's next chance steps this far, then narrows to the minute. */
const PLAN_SEARCH_STEP_MS = 5 * 60_000;

export interface PlannedSlot<Observation extends Schedulable = Schedulable> {
  observation: Observation;
  start: Date;
  end: Date;
}

export interface UnscheduledObservation<Observation extends Schedulable = Schedulable> {
  observation: Observation;
  blockedBy: QueueBlock;
}

/**
 * Dispatch run forward over [start, end): at each moment the first eligible observation in
 * dispatch order (within the window dispatch reads) takes the observatory for its duration, and
 * when none is eligible the clock moves to the next whole minute at which one is, since the
 * minute's dispatch is what wakes an idle observatory. Eligibility is `observationReasonsAt`, the
 * function dispatch itself asks; the observatory is taken as connected, safe, current and
 * dispatching. `pending` must be in dispatch order. An observation asking for a filter the observatory
 * did not report never runs here (FILTER_MISSING).
 *
 * Unscheduled observations are held by what keeps them from ever running here (a target that never
 * rises high enough, a window wholly in daylight), else by their own first reason at the moment of
 * the night they came closest to running, with when it ends; one that could have run but lost every
 * chance to work ahead of it is held by OBSERVATORY_BUSY.
 */
export function runDispatchForward<Observation extends Schedulable>(options: {
  model: SkyModel | null;
  pending: ReadonlyArray<Observation>;
  start: Date;
  end: Date;
  durationMs: (observation: Observation) => number;
  /** What is left of each allocated project's time, in milliseconds: each planned slot is charged to it (the map is changed). */
  allowances?: Map<string, number>;
  /** The filters the observatory reported (null or absent: none, which holds nothing back). */
  filters?: ReadonlyArray<string> | null;
}): { slots: PlannedSlot<Observation>[]; unscheduled: UnscheduledObservation<Observation>[] } {
  const { model, start, end } = options;
  const allowances = options.allowances ?? new Map<string, number>();
  const fits = (observation: Observation) =>
    !allowances.has(observation.doc.projectId) || options.durationMs(observation) <= allowances.get(observation.doc.projectId)!;
  const equipped = (observation: Observation) => hasFilters(options.filters, filtersOf(observation.doc));
  const endMs = end.getTime();
  const remaining = [...options.pending];
  const slots: PlannedSlot<Observation>[] = [];
  /** Per observation: the first moment it may be eligible, as far as a search has shown. */
  const notBefore = new Map<string, number>();
  const eligibleAt = (observation: Observation, ms: number) => isEligibleAt({ doc: observation.doc, model, ms, durationMs: options.durationMs(observation) });
  const nextChance = (observation: Observation, fromMs: number) =>
    nextEligibleMoment({
      doc: observation.doc,
      model,
      from: new Date(fromMs),
      durationMs: options.durationMs(observation),
      withinMs: endMs - fromMs,
      stepMs: PLAN_SEARCH_STEP_MS,
    })?.getTime() ?? Number.POSITIVE_INFINITY;

  let now = start.getTime();
  while (now < endMs && remaining.length > 0) {
    const window = remaining.length > DISPATCH_WINDOW ? remaining.slice(0, DISPATCH_WINDOW) : remaining;
    const chosen = window.findIndex(
      (observation) => (notBefore.get(observation.id) ?? now) <= now && fits(observation) && equipped(observation) && eligibleAt(observation, now),
    );
    if (chosen >= 0) {
      const [observation] = remaining.splice(chosen, 1);
      const durationMs = Math.max(0, options.durationMs(observation!));
      const left = allowances.get(observation!.doc.projectId);
      if (left !== undefined) allowances.set(observation!.doc.projectId, left - durationMs);
      const slotEnd = now + durationMs;
      slots.push({ observation: observation!, start: new Date(now), end: new Date(slotEnd) });
      now = slotEnd;
      continue;
    }
    const from = ceilToMinute(now + 1);
    let next = Number.POSITIVE_INFINITY;
    for (const observation of window) {
      // Time only runs out as the plan goes on: one that no longer fits never will tonight; the filters do not change.
      if (!fits(observation) || !equipped(observation)) continue;
      let chance = notBefore.get(observation.id);
      if (chance === undefined || chance <= now) {
        chance = from < endMs ? nextChance(observation, from) : Number.POSITIVE_INFINITY;
        notBefore.set(observation.id, chance);
      }
      next = Math.min(next, chance);
    }
    if (!Number.isFinite(next)) break;
    now = next;
  }

  const unscheduled = remaining.map((observation): UnscheduledObservation<Observation> => {
    const [never] = reasonsItNeverRuns({ doc: observation.doc, model, now: start });
    if (never) return { observation, blockedBy: never };
    if (!fits(observation)) return { observation, blockedBy: { code: "ALLOCATION_EXHAUSTED", until: null } };
    if (!equipped(observation)) return { observation, blockedBy: { code: "FILTER_MISSING", until: null } };
    if (Number.isFinite(nextChance(observation, start.getTime()))) return { observation, blockedBy: { code: "OBSERVATORY_BUSY", until: null } };
    const durationMs = options.durationMs(observation);
    const reasons = closestReasons({ doc: observation.doc, model, durationMs, fromMs: start.getTime(), endMs });
    const [first] = explainOwnReasons({ doc: observation.doc, reasons, model, now: start, durationMs });
    return { observation, blockedBy: first ?? { code: "OBSERVATORY_BUSY", until: null } };
  });
  return { slots, unscheduled };
}

/**
 * The reasons at the moment of the night when the observation came closest to running (the fewest
 * of them), so daylight before the night does not hide the real one.
 */
export function closestReasons(options: { doc: SchedulingDoc; model: SkyModel | null; durationMs: number; fromMs: number; endMs: number }) {
  const { doc, model, durationMs, fromMs, endMs } = options;
  // The first moment with the fewest: each later moment is counted only as far as it could have fewer, and none has fewer than none.
  let bestAt = fromMs;
  let fewest = ownReasonCount({ doc, model, ms: fromMs, durationMs, atMost: Infinity });
  for (let at = fromMs + PLAN_SEARCH_STEP_MS * 6; at < endMs && fewest > 0; at += PLAN_SEARCH_STEP_MS * 6) {
    const count = ownReasonCount({ doc, model, ms: at, durationMs, atMost: fewest });
    if (count < fewest) [bestAt, fewest] = [at, count];
  }
  return observationReasonsAt({ doc, model, at: new Date(bestAt), durationMs });
}
