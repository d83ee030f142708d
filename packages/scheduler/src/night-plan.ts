import type { Schedulable } from "./inputs";
import { currentNight, localDate, localNoon, nightOf, shiftDate, type Night } from "./night";
import { runDispatchForward, type PlannedSlot, type UnscheduledObservation } from "./plan";
import type { Location } from "./sky";
import type { SkyModel } from "./sky-model";

const DAY_MS = 86_400_000;

/** What a plan of an observatory's nights starts from: the domain reads it, the engine plans over it. */
export interface PlanInputs<Observation extends Schedulable> {
  location: Location | null;
  timeZone: string;
  model: SkyModel | null;
  /** Waiting observations in dispatch order. */
  pending: Observation[];
  /** What is assigned or under way now, with when it started and is expected to end. */
  running: PlannedSlot<Observation>[];
  /** What is left of each allocated project's time at the start of the plan, in milliseconds. */
  allowances: Map<string, number>;
  /** How long each observation holds the observatory (its estimate), in milliseconds. */
  durationMs: (observation: Observation) => number;
  /** The filters the observatory reported (null or absent: none, which holds nothing back). */
  filters?: ReadonlyArray<string> | null;
  now: Date;
}

export interface PlannedNight<Observation extends Schedulable> {
  date: string;
  night: Night | null;
  start: Date;
  end: Date;
  slots: PlannedSlot<Observation>[];
  unscheduled: UnscheduledObservation<Observation>[];
}

/** The local date of the night in progress at `now`, or of the next one. */
export function currentNightDate(inputs: Pick<PlanInputs<Schedulable>, "location" | "timeZone" | "now">): string {
  const { location } = inputs;
  if (!location) return localDate({ at: inputs.now, timeZone: inputs.timeZone });
  return currentNight({ location, timeZone: inputs.timeZone, at: inputs.now })?.date ?? localDate({ at: inputs.now, timeZone: inputs.timeZone });
}

/**
 * The current night and the `extra` after it, each planned with what the nights before left
 * pending. The current night starts now, after what is assigned or running; a later one at its
 * darkness (or its sunset where it has none, or local noon at an observatory without a location).
 */
export function planNights<Observation extends Schedulable>(
  inputs: PlanInputs<Observation>,
  extra: number,
  stopWhen?: (night: PlannedNight<Observation>) => boolean,
): PlannedNight<Observation>[] {
  const { location, durationMs } = inputs;
  const firstDate = currentNightDate(inputs);
  const nights: PlannedNight<Observation>[] = [];
  let pending = inputs.pending;
  // One account for the whole plan: what a night uses is gone for the nights after it.
  const allowances = new Map(inputs.allowances);
  for (let index = 0; index <= extra; index += 1) {
    const date = shiftDate({ date: firstDate, days: index });
    const night = location ? nightOf({ location, timeZone: inputs.timeZone, date }) : null;
    const noonStart = localNoon({ date, timeZone: inputs.timeZone });
    const laterStart = night ? (night.darkStart ?? night.sunset) : noonStart;
    const busyUntil = Math.max(inputs.now.getTime(), ...inputs.running.map((slot) => slot.end.getTime()));
    const start = index === 0 ? new Date(busyUntil) : new Date(Math.max(laterStart.getTime(), busyUntil));
    const end = night ? night.sunrise : new Date((index === 0 ? noonStart.getTime() : laterStart.getTime()) + DAY_MS);
    const { slots, unscheduled } =
      start < end
        ? runDispatchForward({ model: inputs.model, pending, start, end, durationMs, allowances, filters: inputs.filters })
        : { slots: [], unscheduled: pending.map((observation) => heldAll(observation)) };
    const planned = { date, night, start, end, slots: index === 0 ? [...inputs.running, ...slots] : slots, unscheduled };
    nights.push(planned);
    if (stopWhen?.(planned)) break;
    const taken = new Set(slots.map((slot) => slot.observation.id));
    pending = pending.filter((observation) => !taken.has(observation.id));
  }
  return nights;
}

const heldAll = <Observation extends Schedulable>(observation: Observation): UnscheduledObservation<Observation> => ({
  observation,
  blockedBy: { code: "OBSERVATORY_BUSY", until: null },
});
