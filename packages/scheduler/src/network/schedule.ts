import { PLAN_STEP_MS } from "./inputs";
import type { Instance, Job } from "./instance";

/** A job placed: at one of its sites (an index into `job.sites`), from `start` for its duration there. */
export interface Assignment {
  job: number;
  site: number;
  start: number;
}

interface Placed {
  job: number;
  start: number;
  end: number;
}

/**
 * A plan being built: per observatory its runs in order of start, what each allocation has left, and
 * where each job is. Every change keeps it feasible: `canPlace` holds every rule a placement must.
 */
export class Schedule {
  readonly timelines: Placed[][];
  readonly left: number[];
  readonly placed: Array<Assignment | undefined>;
  /** The job of the next run of each job's cadence, or -1. */
  private readonly next: Int32Array;

  constructor(readonly instance: Instance) {
    this.timelines = instance.observatories.map(() => []);
    this.left = instance.budgets.map((budget) => budget.leftMs);
    this.placed = instance.jobs.map(() => undefined);
    this.next = new Int32Array(instance.jobs.length).fill(-1);
    for (const job of instance.jobs) if (job.previous >= 0) this.next[job.previous] = job.index;
  }

  value(): number {
    let total = 0;
    for (const assignment of this.placed) if (assignment) total += this.instance.jobs[assignment.job]!.sites[assignment.site]!.value;
    return total;
  }

  assignments(): Assignment[] {
    return this.placed.filter((assignment): assignment is Assignment => assignment !== undefined);
  }

  /** The runs at the observatory that overlap [start, end). */
  overlapping(observatory: number, start: number, end: number): Placed[] {
    const timeline = this.timelines[observatory]!;
    const found: Placed[] = [];
    for (let index = Math.max(0, this.firstEndingAfter(timeline, start)); index < timeline.length && timeline[index]!.start < end; index += 1) {
      found.push(timeline[index]!);
    }
    return found;
  }

  /** The index of the first run of the timeline that ends after `ms` (runs at one observatory end in order of start). */
  firstEndingAfter(timeline: ReadonlyArray<Placed>, ms: number): number {
    let low = 0;
    let high = timeline.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (timeline[middle]!.end <= ms) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Whether nothing is planned at the observatory during [start, end). */
  isFree(observatory: number, start: number, end: number): boolean {
    const timeline = this.timelines[observatory]!;
    const index = this.firstEndingAfter(timeline, start);
    return index >= timeline.length || timeline[index]!.start >= end;
  }

  /** Whether its cadence allows the job at [start, end): the run before planned and over by an interval, the run after (if planned) far enough on. */
  cadenceAllows(job: Job, start: number, end: number, ignoring?: ReadonlySet<number>): boolean {
    if (job.previous >= 0) {
      const before = this.placed[job.previous];
      if (!before || ignoring?.has(job.previous)) return false;
      const beforeJob = this.instance.jobs[job.previous]!;
      if (before.start + beforeJob.sites[before.site]!.durationMs + job.intervalMs > start) return false;
    }
    const after = this.next[job.index]!;
    const afterPlaced = after >= 0 && !ignoring?.has(after) ? this.placed[after] : undefined;
    return !afterPlaced || end + job.intervalMs <= afterPlaced.start;
  }

  /** Whether the job may be placed there now: free time, allocation left and its cadence (its start is one of the site's). */
  canPlace(job: Job, siteIndex: number, start: number): boolean {
    const site = job.sites[siteIndex]!;
    const end = start + site.durationMs;
    if (site.budget >= 0 && this.left[site.budget]! < site.durationMs) return false;
    return this.isFree(site.observatory, start, end) && this.cadenceAllows(job, start, end);
  }

  place(assignment: Assignment): void {
    const job = this.instance.jobs[assignment.job]!;
    const site = job.sites[assignment.site]!;
    const timeline = this.timelines[site.observatory]!;
    const entry = { job: job.index, start: assignment.start, end: assignment.start + site.durationMs };
    timeline.splice(this.firstEndingAfter(timeline, entry.start), 0, entry);
    if (site.budget >= 0) this.left[site.budget]! -= site.durationMs;
    this.placed[job.index] = assignment;
  }

  remove(jobIndex: number): void {
    const assignment = this.placed[jobIndex];
    if (!assignment) return;
    const site = this.instance.jobs[jobIndex]!.sites[assignment.site]!;
    const timeline = this.timelines[site.observatory]!;
    timeline.splice(
      timeline.findIndex((entry) => entry.job === jobIndex),
      1,
    );
    if (site.budget >= 0) this.left[site.budget]! += site.durationMs;
    this.placed[jobIndex] = undefined;
  }

  /** Whether removing the job leaves its cadence whole: a run with its next run planned stays. */
  removable(jobIndex: number): boolean {
    const after = this.next[jobIndex]!;
    return after < 0 || !this.placed[after];
  }
}

/** The index of the observatory's point at or after a moment (its points are its first free minute, then five-minute boundaries). */
export function pointAtOrAfter(points: number[], ms: number): number {
  if (points.length === 0 || ms <= points[0]!) return 0;
  if (points.length === 1) return 1;
  return Math.min(points.length, Math.ceil((ms - points[1]!) / PLAN_STEP_MS) + 1);
}

/** The index of the first of the sorted moments at or after `ms`. */
export function firstAtOrAfter(sorted: ReadonlyArray<number>, ms: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (sorted[middle]! < ms) low = middle + 1;
    else high = middle;
  }
  return low;
}
