import { hasFilters } from "../filters";
import { ceilToMinute, isEligibleAt, targetVisible, windowOf } from "../queue";
import type { SkyModel } from "../sky-model";
import { PLAN_HORIZON_HOURS, PLAN_STEP_MS, type NetworkObservation, type NetworkObservatory, type NetworkPlanInput } from "./inputs";

/** A monitoring observation is planned at most this many runs ahead (each run is a job of its own). */
const MAX_PLANNED_RUNS = 24;

/** Where a job may run: one candidate observatory, its estimate there, and every start at which it would run whole. */
export interface JobSite {
  observatory: number;
  durationMs: number;
  /** priority × estimated seconds: what a run there adds to the objective. */
  value: number;
  /** Sorted start moments (epoch milliseconds), each one of the observatory's points. */
  starts: number[];
  /** The allocation its runs there are charged to, or -1 when its project is unlimited there. */
  budget: number;
}

/** One run of an observation: one job for most, up to MAX_PLANNED_RUNS for a monitoring cadence. */
export interface Job<Observation extends NetworkObservation = NetworkObservation> {
  index: number;
  observation: Observation;
  run: number;
  /** The job of the run before (a monitoring cadence), which must be planned and end `intervalMs` before this one starts. */
  previous: number;
  intervalMs: number;
  sites: JobSite[];
}

export interface Budget {
  observatory: number;
  leftMs: number;
  /** The period runs charged to it may start in (epoch milliseconds, both included). */
  from: number;
  until: number;
}

/** The plan's problem, read once: each observatory's points in time, the jobs and where and when each may run. */
export interface Instance<Observation extends NetworkObservation = NetworkObservation> {
  input: NetworkPlanInput<Observation>;
  start: number;
  horizonEnd: number;
  observatories: ReadonlyArray<NetworkObservatory>;
  /** Per observatory: its first free minute, then every five-minute boundary up to the horizon. */
  points: number[][];
  jobs: Job<Observation>[];
  budgets: Budget[];
  /** Per observation id: whether it lacks a filter at each candidate, for the reasons. */
  filterMissing: Map<string, Set<string>>;
  /** What this plan computed and the next may keep. */
  cache: NetworkPlanCache;
}

/**
 * What a plan may keep for the next one: what it computed for each observation at each observatory
 * (its starts on the five-minute grid, stretch by stretch; whether a run holds from a moment; why it
 * has no start), by its document (an edited observation is a new document) and a key that names
 * every other input it was computed from: the observatory and its sky model (a moved observatory has
 * a new one), the estimate there, the allocation's period, and the absolute stretch of the grid
 * (`GRID_STRETCH_MS`), never the moment the plan is made, so a plan a minute later keeps them all; only
 * the first free minute's start and the reasons (which read the moment) are keyed by it. A plan made
 * again after one change computes only what changed.
 *
 * Bounded: each plan (`nextPlan`, called by `buildInstance`) keeps what the plan before it used and
 * lets go of the rest, so a cache kept by a running process holds at most two plans' worth, however
 * long it runs (what a stretch already past held is not used again and goes).
 */
export class NetworkPlanCache {
  private current = new WeakMap<object, Map<string, unknown>>();
  private before = new WeakMap<object, Map<string, unknown>>();
  private readonly models = new WeakMap<SkyModel, number>();
  private modelCount = 0;
  /** How many values it computed rather than kept (a test and the benchmark read it). */
  computed = 0;

  /** A new plan begins: what the plan before used is kept for it, the rest let go. */
  nextPlan(): void {
    this.before = this.current;
    this.current = new WeakMap();
    [this.lastDoc, this.lastKnown] = [null, new Map()];
  }

  /** The last document asked about and its values in this plan: a plan asks about one document many times in a row. */
  private lastDoc: object | null = null;
  private lastKnown = new Map<string, unknown>();

  /** What `compute` gives for the document and a key naming every other input it reads. */
  of<T>(doc: object, key: string, compute: () => T): T {
    return this.lookup(doc, key, compute, true);
  }

  /**
   * A table of values by stretch of the grid, kept under the document and a key naming every other input they read; the
   * caller computes each value (and counts it in `computed`) and lets go of the stretches it no longer asks about.
   */
  stretches<T>(doc: object, key: string): Map<number, T> {
    return this.lookup(doc, key, () => new Map<number, T>(), false);
  }

  private lookup<T>(doc: object, key: string, compute: () => T, counted: boolean): T {
    let known = this.lastDoc === doc ? this.lastKnown : this.current.get(doc);
    if (!known) this.current.set(doc, (known = new Map()));
    [this.lastDoc, this.lastKnown] = [doc, known];
    const value = known.get(key);
    if (value !== undefined || known.has(key)) return value as T;
    const kept = this.before.get(doc);
    const keptValue = kept?.get(key);
    if (keptValue !== undefined || kept?.has(key)) {
      known.set(key, keptValue);
      return keptValue as T;
    }
    const computed = compute();
    if (counted) this.computed += 1;
    known.set(key, computed);
    return computed;
  }

  /** A name for a sky model that no other model in this cache shares ("none" without one). */
  modelName(model: SkyModel | null): string {
    if (!model) return "none";
    let name = this.models.get(model);
    if (name === undefined) this.models.set(model, (name = this.modelCount++));
    return `sky${name}`;
  }
}

/** The absolute stretch of the five-minute grid whose starts are computed (and kept) at once. */
const GRID_STRETCH_MS = 6 * 3_600_000;

function pointsOf(observatory: NetworkObservatory, now: number, horizonEnd: number): number[] {
  const first = ceilToMinute(Math.max(now, observatory.busyUntil?.getTime() ?? now));
  const points = first < horizonEnd ? [first] : [];
  for (let at = Math.floor(first / PLAN_STEP_MS) * PLAN_STEP_MS + PLAN_STEP_MS; at < horizonEnd; at += PLAN_STEP_MS) points.push(at);
  return points;
}

/** Whether darkness (unless it bypasses it) and its sky limits hold for the observation at that moment: dispatch's own test. */
export function skyHolds(doc: NetworkObservation["doc"], model: SkyModel | null, ms: number): boolean {
  if (!model) return true;
  const sky = model.atMs(ms);
  return (doc.bypassDarkness || sky.isDark(doc.constraints.twilight ?? "astronomical")) && targetVisible(doc, sky);
}

/**
 * Whether a run from a moment holds: dispatch's rule (`isEligibleAt`), and the sky at every five-minute boundary
 * inside it and at its end rounded up to the minute.
 */
function holdsWhole(doc: NetworkObservation["doc"], model: SkyModel | null, start: number, durationMs: number): boolean {
  const end = start + durationMs;
  if (!isEligibleAt({ doc, model, ms: start, durationMs })) return false;
  for (let at = Math.floor(start / PLAN_STEP_MS) * PLAN_STEP_MS + PLAN_STEP_MS; at < end; at += PLAN_STEP_MS) {
    if (!skyHolds(doc, model, at)) return false;
  }
  return end === start || skyHolds(doc, model, ceilToMinute(end));
}

/**
 * The starts on the five-minute grid in [stretch, stretch + GRID_STRETCH_MS) from which the
 * observation runs whole at the observatory: its window, the period [from, until], and darkness and
 * its sky limits at the start, at every five-minute boundary of its run and at its end rounded up to
 * the minute (dispatch's own checks, its start, every half hour after and its end, are among those).
 * Nothing in it depends on when the plan is made. Only the boundaries from `fromIndex` up to
 * `toIndex` (excluded) are decided, their starts added to `starts`: each boundary is decided alone.
 */
function gridStartsIn(options: {
  doc: NetworkObservation["doc"];
  model: SkyModel | null;
  durationMs: number;
  from: number;
  until: number;
  stretch: number;
  fromIndex: number;
  toIndex: number;
  starts: number[];
}): void {
  const { doc, model, durationMs, stretch, fromIndex, toIndex, starts } = options;
  const window = windowOf(doc);
  const from = Math.max(window.start, options.from);
  const until = Math.min(window.end, options.until);
  const held = new Int8Array(toIndex - fromIndex + Math.ceil(durationMs / PLAN_STEP_MS) + 1);
  const holdsAt = (index: number) => {
    const at = index - fromIndex;
    if (held[at] === 0) held[at] = skyHolds(doc, model, stretch + index * PLAN_STEP_MS) ? 1 : -1;
    return held[at] === 1;
  };
  // The first boundary at or after the one asked about where the sky does not hold: one scan forward for all starts.
  let broken = fromIndex;
  for (let index = fromIndex; index < toIndex; index += 1) {
    const start = stretch + index * PLAN_STEP_MS;
    if (start < from) continue;
    if (start > until || start + durationMs > window.finishBy) break;
    const end = start + durationMs;
    if (broken < index) broken = index;
    while (stretch + broken * PLAN_STEP_MS < end && holdsAt(broken)) broken += 1;
    if (stretch + broken * PLAN_STEP_MS < end) continue;
    if (durationMs > 0 && !skyHolds(doc, model, ceilToMinute(end))) continue;
    starts.push(start);
  }
}

/** A stretch's starts as far as they are decided: its first `decided` boundaries. */
interface StretchStarts {
  starts: number[];
  decided: number;
}

/**
 * Every start on the observatory's points (its first free minute, then the five-minute boundaries up to
 * the horizon) at which the observation runs whole there, as dispatch decides it and stricter (`holdsWhole`);
 * `from` and `until` bound the starts further (an allocation's period). The boundaries' starts are computed
 * per absolute stretch of the grid and kept in the cache by it; the first free minute, which may lie between
 * boundaries, is asked of `holdsWhole` (and kept by that minute).
 */
export function startsAt(options: {
  observation: NetworkObservation;
  observatory: NetworkObservatory;
  points: number[];
  durationMs: number;
  from?: number;
  until?: number;
  cache?: NetworkPlanCache;
}) {
  const { observation, observatory, points, durationMs } = options;
  const cache = options.cache ?? new NetworkPlanCache();
  const doc = observation.doc;
  const model = observatory.model;
  const from = options.from ?? -Infinity;
  const until = options.until ?? Infinity;
  const starts: number[] = [];
  const first = points[0];
  if (first === undefined) return starts;
  const last = points.at(-1)!;
  const key = ["starts", observatory.id, cache.modelName(model), durationMs, from, until].join(" ");
  if (first % PLAN_STEP_MS !== 0) {
    const holds = cache.of(doc, `${key} from ${first}`, () => first >= from && first <= until && holdsWhole(doc, model, first, durationMs));
    if (holds) starts.push(first);
  }
  const gridFrom = Math.ceil(first / PLAN_STEP_MS) * PLAN_STEP_MS;
  const firstStretch = Math.floor(gridFrom / GRID_STRETCH_MS) * GRID_STRETCH_MS;
  const kept = cache.stretches<StretchStarts>(doc, key);
  // A stretch this plan does not reach (one past) is let go.
  for (const stretch of kept.keys()) if (stretch < firstStretch || stretch > last) kept.delete(stretch);
  for (let stretch = firstStretch; stretch <= last; stretch += GRID_STRETCH_MS) {
    // The stretch the horizon ends in is decided only up to the last point: the horizon moves a minute a plan, and the
    // rest of the stretch would be computed hours before a plan reaches it (for every observation at once).
    const reached = Math.min(GRID_STRETCH_MS / PLAN_STEP_MS, Math.floor((last - stretch) / PLAN_STEP_MS) + 1);
    let inStretch = kept.get(stretch);
    if (!inStretch) kept.set(stretch, (inStretch = { starts: [], decided: 0 }));
    if (inStretch.decided < reached) {
      gridStartsIn({ doc, model, durationMs, from, until, stretch, fromIndex: inStretch.decided, toIndex: reached, starts: inStretch.starts });
      inStretch.decided = reached;
      cache.computed += 1;
    }
    for (const start of inStretch.starts) if (start >= gridFrom && start <= last) starts.push(start);
  }
  return starts;
}

/**
 * Whether a run from any moment holds as a plan's start must: dispatch's rule (`isEligibleAt`) and
 * the sky at every five-minute boundary inside it and at its end rounded up to the minute. Dispatch
 * run forward is held to it before the plan takes its runs.
 */
export function runsWhole(instance: Instance, block: { observation: NetworkObservation; observatoryId: string; start: Date; end: Date }): boolean {
  const observatory = instance.observatories.find((candidate) => candidate.id === block.observatoryId);
  if (!observatory) return false;
  const start = block.start.getTime();
  return holdsWhole(block.observation.doc, observatory.model, start, block.end.getTime() - start);
}

function runsToPlan(observation: NetworkObservation, spanMs: number, shortestMs: number): { runs: number; intervalMs: number } {
  const cadence = observation.doc.monitoring;
  if (!cadence) return { runs: 1, intervalMs: 0 };
  const intervalMs = cadence.intervalMinutes * 60_000;
  const left = cadence.maxRuns ? cadence.maxRuns - (observation.doc.monitoringRuns?.count ?? 0) : Infinity;
  const fit = Math.floor(spanMs / (shortestMs + intervalMs)) + 1;
  return { runs: Math.max(0, Math.min(left, fit, MAX_PLANNED_RUNS)), intervalMs };
}

/** Reads the plan's problem from its input: the part every way of solving it shares. */
export function buildInstance<Observation extends NetworkObservation>(
  input: NetworkPlanInput<Observation>,
  cache = new NetworkPlanCache(),
): Instance<Observation> {
  cache.nextPlan();
  const start = input.now.getTime();
  const horizonEnd = start + (input.horizonHours ?? PLAN_HORIZON_HOURS) * 3_600_000;
  const observatories = input.observatories;
  const indexOf = new Map(observatories.map((observatory, index) => [observatory.id, index]));
  const points = observatories.map((observatory) => (observatory.unavailable ? [] : pointsOf(observatory, start, horizonEnd)));
  const budgets: Budget[] = [];
  const budgetOf = new Map<string, Budget & { index: number }>();
  for (const allocation of input.allocations ?? []) {
    const observatory = indexOf.get(allocation.observatoryId);
    if (observatory === undefined) continue;
    // Dispatch charges a run to the period it starts in, and nothing starts after the period.
    const budget = { observatory, leftMs: Math.max(0, allocation.leftMs), from: allocation.periodStart.getTime(), until: allocation.periodEnd.getTime() - 1 };
    budgetOf.set(`${observatory} ${allocation.projectId}`, { ...budget, index: budgets.push(budget) - 1 });
  }
  const jobs: Job<Observation>[] = [];
  const filterMissing = new Map<string, Set<string>>();
  for (const observation of input.observations) {
    const sites: JobSite[] = [];
    for (const id of observation.candidateObservatoryIds) {
      const observatory = indexOf.get(id);
      if (observatory === undefined) continue;
      if (!hasFilters(observatories[observatory]!.filters, observation.filters)) {
        filterMissing.set(observation.id, (filterMissing.get(observation.id) ?? new Set()).add(id));
        continue;
      }
      const durationMs = Math.max(0, input.durationMs(observation, id));
      const budget = budgetOf.get(`${observatory} ${observation.doc.projectId}`);
      const fits = !budget || durationMs <= budgets[budget.index]!.leftMs;
      const here = points[observatory]!;
      const starts = fits
        ? startsAt({ observation, observatory: observatories[observatory]!, points: here, durationMs, from: budget?.from, until: budget?.until, cache })
        : [];
      sites.push({ observatory, durationMs, value: (observation.priority * durationMs) / 1000, starts, budget: budget?.index ?? -1 });
    }
    const usable = sites.filter((site) => site.starts.length > 0);
    const shortest = Math.min(...usable.map((site) => site.durationMs));
    const { runs, intervalMs } = usable.length > 0 ? runsToPlan(observation, horizonEnd - start, shortest) : { runs: 1, intervalMs: 0 };
    for (let run = 0; run < runs; run += 1) {
      jobs.push({ index: jobs.length, observation, run, previous: run > 0 ? jobs.length - 1 : -1, intervalMs, sites: run === 0 ? sites : usable });
    }
  }
  return { input, start, horizonEnd, observatories, points, jobs, budgets, filterMissing, cache };
}

/** Per site of a job and stretch of the grid, the moments a run there holds from or not (the cache's, found once per plan). */
const wholeFrom = new WeakMap<JobSite, Map<number, Map<number, boolean>>>();

/**
 * Whether the job may start at its site at any moment, not only at one of its points: the
 * observatory available and free by then (after what it has under way), its allocation's period,
 * and `runsWhole`. The heuristic asks it of a start right at the end of the run before, which packs
 * runs back to back as dispatch does, and of each run of a plan before that seeds the next one.
 */
export function fitsAt(instance: Instance, job: Job, siteIndex: number, start: number): boolean {
  const site = job.sites[siteIndex]!;
  const budget = site.budget >= 0 ? instance.budgets[site.budget]! : null;
  if (budget && (start < budget.from || start > budget.until)) return false;
  if (start < instance.start || start >= instance.horizonEnd) return false;
  const observatory = instance.observatories[site.observatory]!;
  if (observatory.unavailable || start < (observatory.busyUntil?.getTime() ?? -Infinity)) return false;
  // A run from a moment holds or not by the document, the sky and the estimate alone: kept by stretch of the grid, as the rebuild asks
  // again and again (and a stretch past is let go).
  let stretches = wholeFrom.get(site);
  if (!stretches) wholeFrom.set(site, (stretches = new Map()));
  const stretch = Math.floor(start / GRID_STRETCH_MS) * GRID_STRETCH_MS;
  let known = stretches.get(stretch);
  if (!known) {
    const key = ["whole", observatory.id, instance.cache.modelName(observatory.model), site.durationMs, stretch].join(" ");
    stretches.set(stretch, (known = instance.cache.of(job.observation.doc, key, () => new Map<number, boolean>())));
  }
  let whole = known.get(start);
  if (whole === undefined) {
    whole = holdsWhole(job.observation.doc, observatory.model, start, site.durationMs);
    known.set(start, whole);
  }
  return whole;
}
