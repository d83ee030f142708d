import type { ObservationDoc, ObservatoryDoc, StoredDocument } from "@meridian/db";
import { airmass, darkInterval, type Location } from "./sky";
import { skyModel, type SkyAt, type SkyModel } from "./sky-model";
import { monitoringWindow } from "./monitoring";
import type { Allowance } from "../allocations/allowances";

/** Why a pending observation is not sent now, in the order of docs/api-contract.md: the observation's own reasons before the observatory's. */
export const queueBlockCodes = [
  "BEFORE_WINDOW",
  "AFTER_WINDOW",
  "NOT_DARK",
  "TARGET_NOT_VISIBLE",
  "ALLOCATION_EXHAUSTED",
  "OBSERVATORY_BUSY",
  "OFFLINE",
  "DISPATCH_OFF",
  "PLUGIN_OUTDATED",
  "UNSAFE",
] as const;
export type QueueBlockCode = (typeof queueBlockCodes)[number];
export interface QueueBlock {
  code: QueueBlockCode;
  until: Date | null;
}

/** What dispatch needs to know of an observatory, read once per plan. */
export interface ObservatoryState {
  location: Location | null;
  online: boolean;
  dispatchEnabled: boolean;
  pluginCurrent: boolean;
  /** Safe and not on a weather hold. */
  safe: boolean;
  /** It holds an observation assigned or under way. */
  busy: boolean;
}

export function observatoryStateOf(options: { doc: ObservatoryDoc; pluginCurrent: boolean; busy: boolean }): ObservatoryState {
  const { doc } = options;
  const conditions = doc.conditions;
  return {
    location: doc.location,
    online: doc.connection.online,
    dispatchEnabled: doc.dispatchEnabled,
    pluginCurrent: options.pluginCurrent,
    safe: !conditions || (conditions.safe && !conditions.weatherHold),
    busy: options.busy,
  };
}

/** The observatory's reasons to hold every observation, in the contract's order. */
export function observatoryReasons(state: ObservatoryState): QueueBlock[] {
  const reasons: QueueBlock[] = [];
  if (state.busy) reasons.push({ code: "OBSERVATORY_BUSY", until: null });
  if (!state.online) reasons.push({ code: "OFFLINE", until: null });
  if (!state.dispatchEnabled) reasons.push({ code: "DISPATCH_OFF", until: null });
  if (!state.pluginCurrent) reasons.push({ code: "PLUGIN_OUTDATED", until: null });
  if (!state.safe) reasons.push({ code: "UNSAFE", until: null });
  return reasons;
}

/** The observation's own reasons: what it needs of the clock and the sky, whatever the observatory's state. */
export type OwnReasonCode = "BEFORE_WINDOW" | "AFTER_WINDOW" | "NOT_DARK" | "TARGET_NOT_VISIBLE";

/**
 * When the observation may start (epoch milliseconds): not before its fixed start or a monitoring
 * run's interval after the last, not after its fixed end or its monitoring's `until`. Read once per
 * document (a plan asks about each one thousands of times).
 */
const windows = new WeakMap<ObservationDoc, { start: number; end: number }>();
function windowOf(doc: ObservationDoc): { start: number; end: number } {
  let window = windows.get(doc);
  if (!window) {
    const cadence = monitoringWindow({ doc });
    window = {
      start: Math.max(doc.fixedTimeStart ? Date.parse(doc.fixedTimeStart) : -Infinity, cadence.notBefore?.getTime() ?? -Infinity),
      end: Math.min(doc.fixedTimeEnd ? Date.parse(doc.fixedTimeEnd) : Infinity, cadence.notAfter?.getTime() ?? Infinity),
    };
    windows.set(doc, window);
  }
  return window;
}

/** The earliest moment the observation may start, if it has one. */
function windowStartOf(doc: ObservationDoc): Date | null {
  const { start } = windowOf(doc);
  return Number.isFinite(start) ? new Date(start) : null;
}

/** Refraction lifts a target by less than this above the horizon (and never lowers it). */
const REFRACTION_BOUND = 1;

function targetVisible(doc: ObservationDoc, sky: SkyAt): boolean {
  const target = doc.targets[0]!;
  const minAltitude = doc.constraints.minAltitude ?? 30;
  const { maxAirmass, moonDistance } = doc.constraints;
  // The geometric altitude settles most cases; refraction is computed only near the limit or for an airmass.
  const geometric = sky.geometricAltitude(target);
  if (geometric + REFRACTION_BOUND < minAltitude) return false;
  if (geometric < minAltitude || maxAirmass != null) {
    const altitude = sky.targetAltitude(target);
    if (altitude < minAltitude) return false;
    if (maxAirmass != null && airmass(altitude) > maxAirmass) return false;
  }
  return moonDistance == null || sky.moonDistance(target) >= moonDistance;
}

const MINUTE_MS = 60_000;
/** A long observation's sky is checked this often between its start and its end. */
const CHECK_EVERY_MS = 30 * MINUTE_MS;

/**
 * Whether `holds` is true at every moment an observation starting at `ms` and lasting `durationMs`
 * must meet its sky's constraints: its start, every half hour after, and its end, rounded up to the
 * whole minute (so the sky at that moment is shared by every observation asked about it).
 */
function throughout(model: SkyModel, ms: number, durationMs: number, holds: (sky: SkyAt) => boolean): boolean {
  if (!holds(model.atMs(ms))) return false;
  const end = ms + durationMs;
  for (let at = ms + CHECK_EVERY_MS; at < end; at += CHECK_EVERY_MS) if (!holds(model.atMs(at))) return false;
  return durationMs <= 0 || holds(model.atMs(ceilToMinute(end)));
}

const darkThrough = (doc: ObservationDoc, model: SkyModel, ms: number, durationMs: number) => {
  if (doc.bypassDarkness) return true;
  const twilight = doc.constraints.twilight ?? "astronomical";
  return throughout(model, ms, durationMs, (sky) => sky.isDark(twilight));
};
const visibleThrough = (doc: ObservationDoc, model: SkyModel, ms: number, durationMs: number) =>
  throughout(model, ms, durationMs, (sky) => targetVisible(doc, sky));

/**
 * The eligibility rule of dispatch: the observation's own reasons not to start at this moment, in
 * the contract's order (none: it may start). The window is read at its start; darkness and its
 * target's altitude, airmass and Moon distance must hold from its start to its end
 * (`durationMs`, its estimate), so nothing starts that would run into dawn or below its limits.
 * `model` is null at an observatory without a location, where only the window applies. Dispatch,
 * the queue and the night plan all decide through this.
 */
export function observationReasonsAt(options: { doc: ObservationDoc; model: SkyModel | null; at: Date; durationMs?: number }): OwnReasonCode[] {
  const { doc, model, at } = options;
  const reasons: OwnReasonCode[] = [];
  const window = windowOf(doc);
  const ms = at.getTime();
  if (ms < window.start) reasons.push("BEFORE_WINDOW");
  if (ms > window.end) reasons.push("AFTER_WINDOW");
  if (!model) return reasons;
  const durationMs = options.durationMs ?? 0;
  if (!darkThrough(doc, model, ms, durationMs)) reasons.push("NOT_DARK");
  if (!visibleThrough(doc, model, ms, durationMs)) reasons.push("TARGET_NOT_VISIBLE");
  return reasons;
}

/** `observationReasonsAt` found empty at that moment (epoch milliseconds), asked in the cheapest order and stopping at the first reason. */
export function isEligibleAt(options: { doc: ObservationDoc; model: SkyModel | null; ms: number; durationMs?: number }): boolean {
  const { doc, model, ms } = options;
  const window = windowOf(doc);
  if (ms < window.start || ms > window.end) return false;
  if (!model) return true;
  const durationMs = options.durationMs ?? 0;
  return darkThrough(doc, model, ms, durationMs) && visibleThrough(doc, model, ms, durationMs);
}

/** How far ahead the queue and the forecast look for an observation's next chance. */
const LOOKAHEAD_MS = 7 * 86_400_000;
/** The coarse step of that search; each hit is then narrowed to the minute. */
const SEARCH_STEP_MS = 10 * MINUTE_MS;
/** Refraction lifts a target by less than this near the horizon, so a night whose geometric best is lower by more is skipped. */
const REFRACTION_MARGIN = 1;

export const ceilToMinute = (ms: number) => Math.ceil(ms / MINUTE_MS) * MINUTE_MS;

/**
 * The first whole minute from `from` (within `withinMs`) at which every one of the observation's
 * own constraints is met, or null. It looks only in the observation's darkness and its window,
 * skips a dark interval where its target cannot reach its minimum altitude, steps `stepMs` (ten
 * minutes) through the rest and narrows a hit to the minute, so a chance shorter than a step can be
 * missed; dispatch itself asks at each minute.
 */
export function nextEligibleMoment(options: {
  doc: ObservationDoc;
  model: SkyModel | null;
  from: Date;
  durationMs?: number;
  withinMs?: number;
  stepMs?: number;
}): Date | null {
  const { doc, model } = options;
  const step = options.stepMs ?? SEARCH_STEP_MS;
  const first = ceilToMinute(options.from.getTime());
  const { start: windowStart, end: windowEnd } = windowOf(doc);
  const last = Math.min(first + (options.withinMs ?? LOOKAHEAD_MS), windowEnd);
  const durationMs = options.durationMs ?? 0;
  const eligibleAt = (ms: number) => isEligibleAt({ doc, model, ms, durationMs });
  const spans =
    model && !doc.bypassDarkness
      ? model.darkIntervals(doc.constraints.twilight ?? "astronomical", first, last).map((interval) => ({ from: interval.start, to: interval.end }))
      : [{ from: first, to: last }];
  const target = doc.targets[0]!;
  const minAltitude = doc.constraints.minAltitude ?? 30;
  for (const span of spans) {
    const from = ceilToMinute(Math.max(span.from, first, windowStart));
    // It must end in the same darkness it starts in.
    const to = Math.min(model && !doc.bypassDarkness ? span.to - durationMs : span.to, last);
    if (from > to) continue;
    if (model && model.highestAltitude(target, from, to) + REFRACTION_MARGIN < minAltitude) continue;
    if (eligibleAt(from)) return new Date(from);
    // Steps on whole multiples of the step, so searches for many observations share the sky's moments.
    let previous = from;
    for (let at = Math.floor(from / step) * step + step; at <= to; at += step) {
      if (eligibleAt(at)) {
        for (let minute = previous + MINUTE_MS; minute < at; minute += MINUTE_MS) if (eligibleAt(minute)) return new Date(minute);
        return new Date(at);
      }
      previous = at;
    }
    for (let minute = previous + MINUTE_MS; minute <= to; minute += MINUTE_MS) if (eligibleAt(minute)) return new Date(minute);
  }
  return null;
}

/** Each own reason with when it ends, when that is known: the window's start, darkness's start, the next moment every constraint is met. */
export function explainOwnReasons(options: {
  doc: ObservationDoc;
  codes: OwnReasonCode[];
  model: SkyModel | null;
  now: Date;
  durationMs?: number;
}): QueueBlock[] {
  const { doc, codes, model, now } = options;
  let nextChance: Date | null | undefined;
  const chance = () => (nextChance === undefined ? (nextChance = nextEligibleMoment({ doc, model, from: now, durationMs: options.durationMs })) : nextChance);
  return codes.map((code): QueueBlock => {
    switch (code) {
      case "BEFORE_WINDOW":
        return { code, until: windowStartOf(doc) };
      case "AFTER_WINDOW":
        return { code, until: null };
      case "NOT_DARK": {
        const twilight = doc.constraints.twilight ?? "astronomical";
        return { code, until: model ? (darkInterval({ location: model.location, twilight, at: now })?.start ?? null) : null };
      }
      case "TARGET_NOT_VISIBLE":
        return { code, until: chance() };
    }
  });
}

/**
 * The queue as dispatch sees it: pending observations in dispatch order (highest priority, then
 * oldest), each eligible now or held with every reason that applies (`reasons`, the observation's
 * own before the observatory's; `blockedBy` is the first). Dispatch assigns the first eligible one,
 * and `GET /observatories/{id}/queue` shows this same plan, so the two cannot disagree. `pending`
 * must already be in dispatch order; `durationMs` is how long each holds the observatory (its
 * estimate). `explain` adds when each reason ends (a search of the week ahead for the sky's): the
 * queue wants it, dispatch does not.
 */
export function planQueue(options: {
  state: ObservatoryState;
  pending: ReadonlyArray<StoredDocument<ObservationDoc>>;
  now: Date;
  durationMs?: (observation: StoredDocument<ObservationDoc>) => number;
  /** What is left of each allocated project's time here; a project not in it is unlimited. */
  allowances?: ReadonlyMap<string, Allowance>;
  explain?: boolean;
  model?: SkyModel;
}) {
  const { state, pending, now } = options;
  const model = state.location ? (options.model ?? skyModel({ location: state.location })) : null;
  const shared = observatoryReasons(state);
  const items = pending.map((observation) => {
    const durationMs = options.durationMs?.(observation) ?? 0;
    const codes = observationReasonsAt({ doc: observation.doc, model, at: now, durationMs });
    const own = options.explain ? explainOwnReasons({ doc: observation.doc, codes, model, now, durationMs }) : codes.map((code) => ({ code, until: null }));
    const allowance = options.allowances?.get(observation.doc.projectId);
    const allocation: QueueBlock[] = allowance && durationMs > allowance.leftMs ? [{ code: "ALLOCATION_EXHAUSTED", until: allowance.until }] : [];
    const reasons = [...own, ...allocation, ...shared];
    return { observation, eligible: reasons.length === 0, blockedBy: reasons[0] ?? null, reasons };
  });
  return { items, darkness: state.location ? darkInterval({ location: state.location, twilight: "astronomical", at: now }) : null };
}
