import { reportedFilters, twilightKinds, twilightSunAltitude, type Twilight } from "@meridian/rules";
import { filtersOf, hasFilters } from "./filters";
import type { Allowance, Schedulable, SchedulingDoc } from "./inputs";
import { monitoringWindow } from "./monitoring-window";
import { airmass, culminationAltitude, darkInterval, type Location } from "./sky";
import { skyModel, type SkyAt, type SkyModel } from "./sky-model";

/** Why a pending observation is not sent now, in the order of docs/api-contract.md: the observation's own reasons before the observatory's. */
export const queueBlockCodes = [
  "BEFORE_WINDOW",
  "AFTER_WINDOW",
  "NOT_DARK",
  "TARGET_NOT_VISIBLE",
  "WOULD_NOT_FINISH",
  "ALLOCATION_EXHAUSTED",
  "FILTER_MISSING",
  "OBSERVATORY_BUSY",
  "OFFLINE",
  "DISPATCH_OFF",
  "PLUGIN_OUTDATED",
  "UNSAFE",
  // The network plan holds back an observation that could start now: it starts it later here, or at another observatory.
  "PLANNED_LATER",
  "PLANNED_ELSEWHERE",
] as const;
export type QueueBlockCode = (typeof queueBlockCodes)[number];
/** What a WOULD_NOT_FINISH observation would outlast: its code stands where this limit's own code would. */
export const finishLimits = ["darkness", "altitude", "airmass", "moon", "window"] as const;
export type FinishLimit = (typeof finishLimits)[number];
export interface QueueBlock {
  code: QueueBlockCode;
  until: Date | null;
  /** WOULD_NOT_FINISH: the constraint that would stop holding before the end of its estimate, and when it would. */
  limit?: FinishLimit;
  at?: Date;
  /** TARGET_NOT_VISIBLE for a target that never meets its altitude (or airmass) limit at the site: the highest it ever stands, in degrees. */
  highestAltitude?: number;
  /** NOT_DARK for a time window with no darkness in it at all. */
  windowInDaylight?: true;
  /** PLANNED_ELSEWHERE: the observatory the network plan runs it at. */
  observatoryId?: string;
}

/** A reason as the API writes it: ISO times, and the details only where they apply. */
export function presentQueueBlock(block: QueueBlock) {
  return {
    code: block.code,
    until: block.until?.toISOString() ?? null,
    ...(block.limit ? { limit: block.limit } : {}),
    ...(block.at ? { at: block.at.toISOString() } : {}),
    ...(block.highestAltitude !== undefined ? { highestAltitude: block.highestAltitude } : {}),
    ...(block.windowInDaylight ? { windowInDaylight: true as const } : {}),
    ...(block.observatoryId ? { observatoryId: block.observatoryId } : {}),
  };
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
  /** The filters its plugin reported (`equipment.filters`); null or absent when it reported none, which holds nothing back. */
  filters?: ReadonlyArray<string> | null;
}

/** What the engine reads of an observatory's document. */
export interface ObservatoryFacts {
  location: Location | null;
  connection: { online: boolean };
  dispatchEnabled: boolean;
  conditions?: { safe: boolean; weatherHold?: boolean } | null;
  /** The plugin's last equipment report, as stored: its `filters` are read with `reportedFilters`. */
  equipment?: unknown;
}

export function observatoryStateOf(options: { doc: ObservatoryFacts; pluginCurrent: boolean; busy: boolean }): ObservatoryState {
  const { doc } = options;
  const conditions = doc.conditions;
  return {
    location: doc.location,
    online: doc.connection.online,
    dispatchEnabled: doc.dispatchEnabled,
    pluginCurrent: options.pluginCurrent,
    safe: !conditions || (conditions.safe && !conditions.weatherHold),
    busy: options.busy,
    filters: reportedFilters(doc.equipment),
  };
}

/** Whether no twilight's darkness holds at that moment: by day only an observation that bypasses darkness may be eligible. */
export function isDaylight(model: SkyModel | null, now: Date) {
  if (!model) return false;
  const sky = model.atMs(now.getTime());
  return !twilightKinds.some((twilight) => sky.isDark(twilight));
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
export type OwnReasonCode = "BEFORE_WINDOW" | "AFTER_WINDOW" | "NOT_DARK" | "TARGET_NOT_VISIBLE" | "WOULD_NOT_FINISH";
/** One of them at a moment; a WOULD_NOT_FINISH names its limit and when that limit is crossed (epoch milliseconds). */
export interface OwnReason {
  code: OwnReasonCode;
  limit?: FinishLimit;
  atMs?: number;
}

/**
 * When the observation may start (epoch milliseconds): not before its fixed start or a monitoring
 * run's interval after the last, not after its fixed end or its monitoring's `until`; and by when it
 * must have finished (`finishBy`): its fixed end (a monitoring `until` ends the series' starts, not a
 * run under way). Read once per document (a plan asks about each one thousands of times).
 */
const windows = new WeakMap<SchedulingDoc, { start: number; end: number; finishBy: number }>();
export function windowOf(doc: SchedulingDoc): { start: number; end: number; finishBy: number } {
  let window = windows.get(doc);
  if (!window) {
    const cadence = monitoringWindow({ doc });
    const fixedEnd = doc.fixedTimeEnd ? Date.parse(doc.fixedTimeEnd) : Infinity;
    window = {
      start: Math.max(doc.fixedTimeStart ? Date.parse(doc.fixedTimeStart) : -Infinity, cadence.notBefore?.getTime() ?? -Infinity),
      end: Math.min(fixedEnd, cadence.notAfter?.getTime() ?? Infinity),
      finishBy: fixedEnd,
    };
    windows.set(doc, window);
  }
  return window;
}

/** The earliest moment the observation may start, if it has one. */
function windowStartOf(doc: SchedulingDoc): Date | null {
  const { start } = windowOf(doc);
  return Number.isFinite(start) ? new Date(start) : null;
}

/** Refraction lifts a target by less than this above the horizon (and never lowers it). */
export const REFRACTION_BOUND = 1;

/** Which of its sky limits the observation's first target breaks at that moment, the first in this order; null when it meets them all. */
function skyLimitBroken(doc: SchedulingDoc, sky: SkyAt): "altitude" | "airmass" | "moon" | null {
  const target = doc.targets[0]!;
  const minAltitude = doc.constraints.minAltitude ?? 30;
  const { maxAirmass, moonDistance } = doc.constraints;
  // The geometric altitude settles most cases; refraction is computed only near the limit or for an airmass.
  const geometric = sky.geometricAltitude(target);
  if (geometric + REFRACTION_BOUND < minAltitude) return "altitude";
  if (geometric < minAltitude || maxAirmass != null) {
    const altitude = sky.targetAltitude(target);
    if (altitude < minAltitude) return "altitude";
    if (maxAirmass != null && airmass(altitude) > maxAirmass) return "airmass";
  }
  return moonDistance == null || sky.moonDistance(target) >= moonDistance ? null : "moon";
}
export const targetVisible = (doc: SchedulingDoc, sky: SkyAt) => skyLimitBroken(doc, sky) === null;

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

/**
 * The first moment after `ms`, within a run of `durationMs`, at which `holds` is false, as `throughout`
 * finds it (so it is null exactly when `throughout` is true from a start where `holds` is), narrowed
 * to the whole minute.
 */
function firstFailure(model: SkyModel, ms: number, durationMs: number, holds: (sky: SkyAt) => boolean): number | null {
  const end = ms + durationMs;
  const checks: number[] = [];
  for (let at = ms + CHECK_EVERY_MS; at < end; at += CHECK_EVERY_MS) checks.push(at);
  if (durationMs > 0) checks.push(ceilToMinute(end));
  let previous = ms;
  for (const check of checks) {
    if (!holds(model.atMs(check))) {
      for (let minute = ceilToMinute(previous + 1); minute < check; minute += MINUTE_MS) if (!holds(model.atMs(minute))) return minute;
      return check;
    }
    previous = check;
  }
  return null;
}

const twilightOf = (doc: SchedulingDoc) => doc.constraints.twilight ?? "astronomical";

/** The darkness reason at a moment: none, NOT_DARK (not dark now), or WOULD_NOT_FINISH at the end of the darkness it starts in. */
function darknessReason(doc: SchedulingDoc, model: SkyModel, ms: number, durationMs: number): OwnReason | null {
  if (doc.bypassDarkness) return null;
  const twilight = twilightOf(doc);
  if (!model.atMs(ms).isDark(twilight)) return { code: "NOT_DARK" };
  if (darkThrough(doc, model, ms, durationMs)) return null;
  const dawn = model.darkIntervals(twilight, ms, ms).find((interval) => interval.start <= ms && ms <= interval.end)?.end;
  return { code: "WOULD_NOT_FINISH", limit: "darkness", atMs: dawn ?? firstFailure(model, ms, durationMs, (sky) => sky.isDark(twilight)) ?? ms + durationMs };
}

/** The sky reason at a moment: none, TARGET_NOT_VISIBLE (a limit broken now), or WOULD_NOT_FINISH at the first limit its run would break. */
function visibilityReason(doc: SchedulingDoc, model: SkyModel, ms: number, durationMs: number): OwnReason | null {
  if (!targetVisible(doc, model.atMs(ms))) return { code: "TARGET_NOT_VISIBLE" };
  const failure = firstFailure(model, ms, durationMs, (sky) => targetVisible(doc, sky));
  if (failure === null) return null;
  return { code: "WOULD_NOT_FINISH", limit: skyLimitBroken(doc, model.atMs(failure)) ?? "altitude", atMs: failure };
}

/**
 * No target and not the Sun rises or sets faster than this (degrees per millisecond): the sky turns 15.04° an hour, the
 * Sun's own motion adds under 0.05°, and a body's altitude changes no faster than it moves across the sky.
 */
export const ALTITUDE_RATE_BOUND = 15.5 / 3_600_000;

/**
 * Whether a run's every check of the sky (`throughout`: its start, every half hour, its end rounded up to the minute)
 * falls where the Sun is below its twilight. The same answer as asking each check, which is needed only when the Sun
 * at the start is not so far below its twilight that it could not rise to it by the last check.
 */
export const darkThrough = (doc: SchedulingDoc, model: SkyModel, ms: number, durationMs: number) => {
  if (doc.bypassDarkness) return true;
  const twilight = doc.constraints.twilight ?? "astronomical";
  const lastCheck = durationMs > 0 ? ceilToMinute(ms + durationMs) : ms;
  if (model.atMs(ms).sunAltitude < twilightSunAltitude[twilight] - ALTITUDE_RATE_BOUND * (lastCheck - ms)) return true;
  return throughout(model, ms, durationMs, (sky) => sky.isDark(twilight));
};

/**
 * The same for the target's limits. A target with only a minimum altitude (no airmass, no Moon distance) that stands
 * above it at the start by more than it could sink by the last check meets it at every check (refraction only lifts it).
 */
const visibleThrough = (doc: SchedulingDoc, model: SkyModel, ms: number, durationMs: number) => {
  const { maxAirmass, moonDistance } = doc.constraints;
  if (maxAirmass == null && moonDistance == null) {
    const lastCheck = durationMs > 0 ? ceilToMinute(ms + durationMs) : ms;
    const geometric = model.atMs(ms).geometricAltitude(doc.targets[0]!);
    if (geometric - ALTITUDE_RATE_BOUND * (lastCheck - ms) >= (doc.constraints.minAltitude ?? 30)) return true;
  }
  return throughout(model, ms, durationMs, (sky) => targetVisible(doc, sky));
};

/**
 * The eligibility rule of dispatch: the observation's own reasons not to start at this moment, in
 * the contract's order (none: it may start). Its start must lie in its window and its end by its
 * fixed end; darkness and its target's altitude, airmass and Moon distance must hold from its start
 * to its end (`durationMs`, its estimate), so nothing starts that would run into dawn or below its
 * limits. A limit broken now is its own code (AFTER_WINDOW, NOT_DARK, TARGET_NOT_VISIBLE); one that
 * holds now but would not to the end is WOULD_NOT_FINISH in that code's place. `model` is null at
 * an observatory without a location, where only the window applies. Dispatch, the queue and the
 * night plan all decide through this.
 */
export function observationReasonsAt(options: { doc: SchedulingDoc; model: SkyModel | null; at: Date; durationMs?: number }): OwnReason[] {
  const { doc, model, at } = options;
  const reasons: OwnReason[] = [];
  const window = windowOf(doc);
  const ms = at.getTime();
  const durationMs = options.durationMs ?? 0;
  if (ms < window.start) reasons.push({ code: "BEFORE_WINDOW" });
  if (ms > window.end) reasons.push({ code: "AFTER_WINDOW" });
  else if (ms >= window.start && ms + durationMs > window.finishBy) reasons.push({ code: "WOULD_NOT_FINISH", limit: "window", atMs: window.finishBy });
  if (!model) return reasons;
  const darkness = darknessReason(doc, model, ms, durationMs);
  if (darkness) reasons.push(darkness);
  const visibility = visibilityReason(doc, model, ms, durationMs);
  if (visibility) reasons.push(visibility);
  return reasons;
}

/**
 * How many reasons `observationReasonsAt` finds at that moment, counted no further than `atMost`: the same checks
 * without what only the reasons' details need (when a limit is crossed, narrowed to the minute). A search for the
 * moment with the fewest reasons asks this at each of its moments and the reasons themselves at the one it keeps.
 */
export function ownReasonCount(options: { doc: SchedulingDoc; model: SkyModel | null; ms: number; durationMs: number; atMost: number }): number {
  const { doc, model, ms, durationMs, atMost } = options;
  const window = windowOf(doc);
  let count = 0;
  if (ms < window.start) count += 1;
  if (ms > window.end || (ms >= window.start && ms + durationMs > window.finishBy)) count += 1;
  if (!model) return count;
  // A darkness or a sky reason is found exactly where the darkness or the sky does not hold throughout.
  if (!darkThrough(doc, model, ms, durationMs)) {
    count += 1;
    // Where the reason would say when the darkness ends, its search of the model's dark intervals is made as well: the
    // model keeps them from the earliest moment asked, so what it answers later stays what it answered with the reasons.
    if (model.atMs(ms).isDark(twilightOf(doc))) model.darkIntervals(twilightOf(doc), ms, ms);
  }
  if (count >= atMost) return count;
  return visibleThrough(doc, model, ms, durationMs) ? count : count + 1;
}

/** `observationReasonsAt` found empty at that moment (epoch milliseconds), asked in the cheapest order and stopping at the first reason. */
export function isEligibleAt(options: { doc: SchedulingDoc; model: SkyModel | null; ms: number; durationMs?: number }): boolean {
  const { doc, model, ms } = options;
  const window = windowOf(doc);
  const durationMs = options.durationMs ?? 0;
  if (ms < window.start || ms > window.end || ms + durationMs > window.finishBy) return false;
  if (!model) return true;
  return darkThrough(doc, model, ms, durationMs) && visibleThrough(doc, model, ms, durationMs);
}

/** How far ahead the queue and the forecast look for an observation's next chance. */
const LOOKAHEAD_MS = 7 * 86_400_000;
/** The coarse step of that search; each hit is then narrowed to the minute. */
const SEARCH_STEP_MS = 10 * MINUTE_MS;
/** Refraction lifts a target by less than this near the horizon, so a night whose geometric best is lower by more is skipped. */
const REFRACTION_MARGIN = 1;

export const ceilToMinute = (ms: number) => Math.ceil(ms / MINUTE_MS) * MINUTE_MS;

/** Where `nextEligibleMoment` keeps its searches of dark intervals: the search's value under its key (step, first minute, last start). */
export type SpanSearchKept = (key: string, search: () => number | null) => number | null;

/**
 * The first whole minute from `from` (within `withinMs`) at which every one of the observation's
 * own constraints is met, or null. It looks only in the observation's darkness and its window,
 * skips a dark interval where its target cannot reach its minimum altitude, steps `stepMs` (ten
 * minutes) through the rest and narrows a hit to the minute, so a chance shorter than a step can be
 * missed; dispatch itself asks at each minute.
 */
export function nextEligibleMoment(options: {
  doc: SchedulingDoc;
  model: SkyModel | null;
  from: Date;
  durationMs?: number;
  withinMs?: number;
  stepMs?: number;
  /**
   * Keeps the search of one dark interval (from its first minute to its last start, both epoch milliseconds): what
   * it finds depends on nothing else (with the document, its sky and the estimate), so a search from a later moment
   * may take it again for every interval it does not cut short.
   */
  spanSearch?: SpanSearchKept;
}): Date | null {
  const { doc, model } = options;
  const step = options.stepMs ?? SEARCH_STEP_MS;
  const first = ceilToMinute(options.from.getTime());
  const { start: windowStart, end: windowEnd, finishBy } = windowOf(doc);
  const durationMs = options.durationMs ?? 0;
  const last = Math.min(first + (options.withinMs ?? LOOKAHEAD_MS), windowEnd, finishBy - durationMs);
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
    const search = () => {
      if (model && model.highestAltitude(target, from, to) + REFRACTION_MARGIN < minAltitude) return null;
      if (eligibleAt(from)) return from;
      // Steps on whole multiples of the step, so searches for many observations share the sky's moments.
      let previous = from;
      for (let at = Math.floor(from / step) * step + step; at <= to; at += step) {
        if (eligibleAt(at)) {
          for (let minute = previous + MINUTE_MS; minute < at; minute += MINUTE_MS) if (eligibleAt(minute)) return minute;
          return at;
        }
        previous = at;
      }
      for (let minute = previous + MINUTE_MS; minute <= to; minute += MINUTE_MS) if (eligibleAt(minute)) return minute;
      return null;
    };
    const found = options.spanSearch ? options.spanSearch(`${step} ${from} ${to}`, search) : search();
    if (found !== null) return new Date(found);
  }
  return null;
}

/** The start of the next darkness for its twilight at or after `now` (never one already begun). */
function nextDarkness(doc: SchedulingDoc, model: SkyModel, now: Date): Date | null {
  const ms = now.getTime();
  const next = model.darkIntervals(twilightOf(doc), ms, ms + 3 * 86_400_000).find((interval) => interval.start >= ms);
  return next ? new Date(next.start) : null;
}

/**
 * Each own reason with when it ends, when that is known: the window's start, the next darkness's
 * start, the next moment it may start and run whole (every constraint met to the end of its estimate).
 * Each `until` is at or after `now`.
 */
export function explainOwnReasons(options: {
  doc: SchedulingDoc;
  reasons: OwnReason[];
  model: SkyModel | null;
  now: Date;
  durationMs?: number;
  spanSearch?: SpanSearchKept;
}): QueueBlock[] {
  const { doc, reasons, model, now, durationMs, spanSearch } = options;
  let nextChance: Date | null | undefined;
  const chance = () => (nextChance === undefined ? (nextChance = nextEligibleMoment({ doc, model, from: now, durationMs, spanSearch })) : nextChance);
  return reasons.map(({ code, limit, atMs }): QueueBlock => {
    switch (code) {
      case "BEFORE_WINDOW":
        return { code, until: windowStartOf(doc) };
      case "AFTER_WINDOW":
        return { code, until: null };
      case "NOT_DARK":
        return { code, until: model ? nextDarkness(doc, model, now) : null };
      case "TARGET_NOT_VISIBLE":
        return { code, until: chance() };
      case "WOULD_NOT_FINISH":
        return { code, until: chance(), limit: limit!, at: new Date(atMs!) };
    }
  });
}

/** Whether no darkness for the twilight falls between two moments (epoch milliseconds): one search from the first, however far ahead. */
function noDarknessBetween(location: Location, twilight: Twilight, from: number, to: number): boolean {
  const interval = darkInterval({ location, twilight, at: new Date(from) });
  // None within the two days it searches: certain only for a window no longer than that.
  if (!interval) return to - from <= 2 * 86_400_000;
  return interval.start.getTime() > to;
}

/** Read once per document and sky: a plan asks about each unscheduled observation every night it plans. */
const neverRuns = new WeakMap<SkyModel, WeakMap<SchedulingDoc, QueueBlock[]>>();

/**
 * What keeps the observation from ever running here, whatever the clock: a first target whose
 * highest altitude at the site (its culmination) is below its minimum altitude or past its maximum
 * airmass (TARGET_NOT_VISIBLE with `highestAltitude`), or a time window, from `now` on, with no
 * darkness in it (NOT_DARK with `windowInDaylight`). Both have no `until`.
 */
export function reasonsItNeverRuns(options: { doc: SchedulingDoc; model: SkyModel | null; now: Date }): QueueBlock[] {
  const { doc, model, now } = options;
  if (!model) return [];
  let known = neverRuns.get(model);
  if (!known) neverRuns.set(model, (known = new WeakMap()));
  const cached = known.get(doc);
  if (cached) return cached;
  const reasons: QueueBlock[] = [];
  const window = windowOf(doc);
  const from = Math.max(window.start, now.getTime());
  const to = Math.min(window.end, window.finishBy);
  if (!doc.bypassDarkness && Number.isFinite(to) && from <= to && noDarknessBetween(model.location, twilightOf(doc), from, to)) {
    reasons.push({ code: "NOT_DARK", until: null, windowInDaylight: true });
  }
  const highest = culminationAltitude({ location: model.location, target: doc.targets[0]!, at: now });
  const { maxAirmass } = doc.constraints;
  if (highest < (doc.constraints.minAltitude ?? 30) || (maxAirmass != null && airmass(highest) > maxAirmass)) {
    reasons.push({ code: "TARGET_NOT_VISIBLE", until: null, highestAltitude: Math.round(highest * 10) / 10 });
  }
  known.set(doc, reasons);
  return reasons;
}

/** Where an own reason stands in the contract's order: a WOULD_NOT_FINISH where its limit's own code does. */
function ownRank(reason: QueueBlock): number {
  if (reason.code === "WOULD_NOT_FINISH") return reason.limit === "window" ? 1 : reason.limit === "darkness" ? 2 : 3;
  return ["BEFORE_WINDOW", "AFTER_WINDOW", "NOT_DARK", "TARGET_NOT_VISIBLE"].indexOf(reason.code);
}

/** The explained own reasons with what keeps it from ever running in place of the reason of the same rank. */
function withReasonsItNeverRuns(explained: QueueBlock[], never: QueueBlock[]): QueueBlock[] {
  if (never.length === 0) return explained;
  const ranks = new Set(never.map(ownRank));
  return [...explained.filter((reason) => !ranks.has(ownRank(reason))), ...never].sort((a, b) => ownRank(a) - ownRank(b));
}

/** A reason as dispatch needs it: no search for when it ends. */
const unexplained = ({ code, limit, atMs }: OwnReason): QueueBlock =>
  code === "WOULD_NOT_FINISH" ? { code, until: null, limit: limit!, at: new Date(atMs!) } : { code, until: null };

function explained(doc: SchedulingDoc, found: OwnReason[], model: SkyModel | null, now: Date, durationMs: number): QueueBlock[] {
  if (found.length === 0) return [];
  return withReasonsItNeverRuns(explainOwnReasons({ doc, reasons: found, model, now, durationMs }), reasonsItNeverRuns({ doc, model, now }));
}

/**
 * The queue as dispatch sees it: pending observations in dispatch order (highest priority, then
 * oldest), each eligible now or held with every reason that applies (`reasons`, the observation's
 * own, then its allocation and the filters it asks for here, before the observatory's; `blockedBy`
 * is the first). Dispatch assigns the first eligible one,
 * and `GET /observatories/{id}/queue` shows this same plan, so the two cannot disagree. `pending`
 * must already be in dispatch order; `durationMs` is how long each holds the observatory (its
 * estimate). `explain` adds when each reason ends (a search of the week ahead for the sky's): the
 * queue wants it, dispatch does not.
 */
export function planQueue<Observation extends Schedulable>(options: {
  state: ObservatoryState;
  pending: ReadonlyArray<Observation>;
  now: Date;
  durationMs?: (observation: Observation) => number;
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
    const found = observationReasonsAt({ doc: observation.doc, model, at: now, durationMs });
    const own = options.explain ? explained(observation.doc, found, model, now, durationMs) : found.map(unexplained);
    const allowance = options.allowances?.get(observation.doc.projectId);
    const allocation: QueueBlock[] = allowance && durationMs > allowance.leftMs ? [{ code: "ALLOCATION_EXHAUSTED", until: allowance.until }] : [];
    const filters: QueueBlock[] = hasFilters(state.filters, filtersOf(observation.doc)) ? [] : [{ code: "FILTER_MISSING", until: null }];
    const reasons = [...own, ...allocation, ...filters, ...shared];
    return { observation, eligible: reasons.length === 0, blockedBy: reasons[0] ?? null, reasons };
  });
  return { items, darkness: state.location ? darkInterval({ location: state.location, twilight: "astronomical", at: now }) : null };
}
