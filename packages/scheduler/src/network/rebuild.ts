import { fitsAt, type Job } from "./instance";
import { seededRandom } from "./random";
import type { Assignment, Schedule } from "./schedule";

/** The stretch of one observatory's time that a rebuild clears and fills again. */
const WINDOW_MS = 2 * 3_600_000;
/** Windows overlap by half. */
const WINDOW_STEP_MS = WINDOW_MS / 2;

interface Candidate {
  job: Job;
  /** The sites it may take in the window, each with its starts inside the window. */
  sites: Array<{ site: number; starts: number[] }>;
  /** How many starts it has in the window, over its sites. */
  count: number;
  last: number;
}

/** The earliest moment in [from, to) at which the candidate can be placed now at one of its sites: one of its starts, or the end of a run already there. */
function earliestStart(schedule: Schedule, candidate: Candidate, from: number, to: number): Assignment | null {
  let best: Assignment | null = null;
  for (const { site: siteIndex, starts } of candidate.sites) {
    const site = candidate.job.sites[siteIndex]!;
    const ends = schedule.timelines[site.observatory]!.map((entry) => entry.end).filter((end) => end >= from && end < to);
    const known = new Set(starts);
    for (const start of [...starts, ...ends].sort((a, b) => a - b)) {
      if (best && start >= best.start) break;
      if (!schedule.canPlace(candidate.job, siteIndex, start)) continue;
      if (known.has(start) || fitsAt(schedule.instance, candidate.job, siteIndex, start)) {
        best = { job: candidate.job.index, site: siteIndex, start };
        break;
      }
    }
  }
  return best;
}

const valueOf = (candidate: Candidate) => Math.max(...candidate.job.sites.map((site) => site.value));
/** The orders a window is filled in: worth most first; most urgent (fewest starts left) first; the one whose last start comes first. */
const orders: Array<(a: Candidate, b: Candidate) => number> = [
  (a, b) => valueOf(b) - valueOf(a),
  (a, b) => b.job.observation.priority - a.job.observation.priority || a.count - b.count,
  (a, b) => a.last - b.last || b.job.observation.priority - a.job.observation.priority,
];
/** A window with this few candidates is also filled in this many shuffled orders (seeded: the same plan each time). */
const SHUFFLE_BELOW = 16;
const SHUFFLES = 60;

function shuffled<T>(items: T[], random: () => number): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other]!, copy[index]!];
  }
  return copy;
}

/** Clears [from, to) at the observatories and fills it again in each order; keeps the best filling if it is worth more. */
function rebuildWindow(schedule: Schedule, observatories: ReadonlySet<number>, from: number, to: number, random: () => number): void {
  const { instance } = schedule;
  const removed = [...observatories].flatMap((observatory) =>
    schedule.timelines[observatory]!.filter((entry) => entry.start >= from && entry.start < to && schedule.removable(entry.job)),
  );
  const removedJobs = new Set(removed.map((entry) => entry.job));
  const candidates: Candidate[] = [];
  for (const job of instance.jobs) {
    if (schedule.placed[job.index] && !removedJobs.has(job.index)) continue;
    const sites = job.sites
      .map((site, index) => ({ site: index, observatory: site.observatory, starts: site.starts.filter((start) => start >= from && start < to) }))
      .filter((site) => observatories.has(site.observatory) && (site.starts.length > 0 || removedJobs.has(job.index)));
    if (sites.length === 0) continue;
    const all = sites.flatMap((site) => site.starts);
    candidates.push({ job, sites, count: all.length, last: all.length > 0 ? Math.max(...all) : from });
  }
  if (candidates.length <= removed.length) return;
  const before: Assignment[] = removed.map((entry) => schedule.placed[entry.job]!);
  const worth = (assignments: ReadonlyArray<Assignment>) =>
    assignments.reduce((total, assignment) => total + instance.jobs[assignment.job]!.sites[assignment.site]!.value, 0);
  for (const entry of removed) schedule.remove(entry.job);
  let best = { assignments: before, value: worth(before) };
  const sequences = orders.map((order) => [...candidates].sort(order));
  if (candidates.length < SHUFFLE_BELOW) for (let round = 0; round < SHUFFLES; round += 1) sequences.push(shuffled(candidates, random));
  for (const sequence of sequences) {
    const filled: Assignment[] = [];
    for (const candidate of sequence) {
      if (schedule.placed[candidate.job.index]) continue;
      const assignment = earliestStart(schedule, candidate, from, to);
      if (!assignment) continue;
      schedule.place(assignment);
      filled.push(assignment);
    }
    const value = worth(filled);
    if (value > best.value + 1e-6) best = { assignments: filled, value };
    for (const assignment of filled) schedule.remove(assignment.job);
  }
  for (const assignment of best.assignments.sort((a, b) => a.start - b.start)) schedule.place(assignment);
}

/**
 * Ruin and recreate, window by window: two hours at a time, first at each observatory alone, then
 * at all of them together (which moves work between observatories), the runs that start in the
 * window are taken out and the window is filled again, from those and the jobs left out that could
 * start there, in each of a few orders (and, in a window with few candidates, many shuffled ones),
 * each job at its earliest start; the best filling is kept when it is worth more than what was
 * there. Greedy choices that a later, better candidate would have needed (a target that sets early
 * behind one that stays up all night) are undone this way.
 */
export function rebuildWindows(schedule: Schedule): void {
  const { instance } = schedule;
  const random = seededRandom(instance.jobs.length + 1);
  const every = new Set(instance.observatories.map((_, index) => index));
  for (const observatories of [...[...every].map((index) => new Set([index])), every]) {
    for (let from = instance.start; from < instance.horizonEnd; from += WINDOW_STEP_MS) rebuildWindow(schedule, observatories, from, from + WINDOW_MS, random);
  }
}
