import { fitsAt, type Instance, type Job } from "./instance";
import { seededRandom } from "./random";
import { firstAtOrAfter, type Assignment, type Schedule } from "./schedule";

/** The stretch of one observatory's time that a rebuild clears and fills again (unless told another). */
const WINDOW_MS = 2 * 3_600_000;

interface Candidate {
  job: Job;
  /** The sites it may take in the window, each with its starts inside the window. */
  sites: Array<{ site: number; starts: number[] }>;
  /** How many starts it has in the window, over its sites. */
  count: number;
  last: number;
  /** What it is worth at its best site. */
  value: number;
}

/** Whether the job can be placed now at the site from `start`: free, and (unless `start` is one of its known starts) whole from there. */
function placeableAt(schedule: Schedule, job: Job, siteIndex: number, start: number, known: boolean): boolean {
  return schedule.canPlace(job, siteIndex, start) && (known || fitsAt(schedule.instance, job, siteIndex, start));
}

/**
 * The earliest moment in [from, to) at which the candidate can be placed now at one of its sites: one of its starts, or
 * the end of a run already there. Both lists are in order, so they are walked together, earliest first.
 */
function earliestStart(schedule: Schedule, candidate: Candidate, from: number, to: number): Assignment | null {
  let best: Assignment | null = null;
  for (const { site: siteIndex, starts } of candidate.sites) {
    const site = candidate.job.sites[siteIndex]!;
    const timeline = schedule.timelines[site.observatory]!;
    let next = 0;
    let after = schedule.firstEndingAfter(timeline, from - 1);
    for (;;) {
      const fromStarts = next < starts.length;
      const end = after < timeline.length && timeline[after]!.end < to ? timeline[after]!.end : Infinity;
      if (!fromStarts && end === Infinity) break;
      const known = fromStarts && starts[next]! <= end;
      const start = known ? starts[next]! : end;
      if (known) {
        next += 1;
        // The same moment as a run's end: one try.
        if (start === end) after += 1;
      } else after += 1;
      if (best && start >= best.start) break;
      if (placeableAt(schedule, candidate.job, siteIndex, start, known)) {
        best = { job: candidate.job.index, site: siteIndex, start };
        break;
      }
    }
  }
  return best;
}

const valueOf = (candidate: Candidate) => candidate.value;
/**
 * The orders a window is filled in: worth most first; most urgent (fewest starts left) first; the one whose last start
 * comes first; highest priority first, then worth most, or then the one whose last start comes first.
 */
const orders: Array<(a: Candidate, b: Candidate) => number> = [
  (a, b) => valueOf(b) - valueOf(a),
  (a, b) => b.job.observation.priority - a.job.observation.priority || a.count - b.count,
  (a, b) => a.last - b.last || b.job.observation.priority - a.job.observation.priority,
  (a, b) => b.job.observation.priority - a.job.observation.priority || valueOf(b) - valueOf(a),
  (a, b) => b.job.observation.priority - a.job.observation.priority || a.last - b.last,
];

/**
 * Fills the window in time order: each step places, of the candidates not placed yet, the one that can start earliest
 * (the higher priority of two that start together, then the first in the list), so the observatory waits least; a
 * candidate that cannot be placed once cannot later (the window only fills up) and is dropped. The runs placed.
 *
 * Each candidate's earliest start is kept between steps: a run placed only takes starts away, except one right at its
 * end, so the start kept is still the earliest while it can still be placed, unless that end comes before it.
 */
function fillInTimeOrder(schedule: Schedule, candidates: ReadonlyArray<Candidate>, from: number, to: number): Assignment[] {
  const filled: Assignment[] = [];
  const earliest = new Map<Candidate, Assignment>();
  let open = [...candidates];
  let lastEnd: number | null = null;
  for (;;) {
    let pick: { assignment: Assignment; candidate: Candidate } | null = null;
    const still: Candidate[] = [];
    for (const candidate of open) {
      if (schedule.placed[candidate.job.index]) continue;
      let assignment = earliest.get(candidate) ?? null;
      if (!assignment || !schedule.canPlace(candidate.job, assignment.site, assignment.start)) assignment = earliestStart(schedule, candidate, from, to);
      else if (lastEnd !== null && lastEnd < assignment.start && lastEnd >= from && lastEnd < to && packsAt(schedule, candidate, assignment.site, lastEnd))
        assignment = { ...assignment, start: lastEnd };
      if (!assignment) continue;
      earliest.set(candidate, assignment);
      still.push(candidate);
      const priority = candidate.job.observation.priority;
      if (
        !pick ||
        assignment.start < pick.assignment.start ||
        (assignment.start === pick.assignment.start && priority > pick.candidate.job.observation.priority)
      )
        pick = { assignment, candidate };
    }
    if (!pick) return filled;
    schedule.place(pick.assignment);
    filled.push(pick.assignment);
    lastEnd = pick.assignment.start + pick.candidate.job.sites[pick.assignment.site]!.durationMs;
    open = still;
  }
}

/** Whether the candidate can be placed now at the site from that moment (the end of a run). */
function packsAt(schedule: Schedule, candidate: Candidate, siteIndex: number, start: number): boolean {
  const { starts } = candidate.sites.find((site) => site.site === siteIndex)!;
  return placeableAt(schedule, candidate.job, siteIndex, start, starts[firstAtOrAfter(starts, start)] === start);
}

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
function rebuildWindow(
  schedule: Schedule,
  index: JobIndex,
  window: { observatories: ReadonlySet<number>; from: number; to: number; inTimeOrder: boolean },
  random: () => number,
): void {
  const { observatories, from, to } = window;
  const { instance } = schedule;
  const removed = [...observatories].flatMap((observatory) =>
    schedule.timelines[observatory]!.filter((entry) => entry.start >= from && entry.start < to && schedule.removable(entry.job)),
  );
  const removedJobs = new Set(removed.map((entry) => entry.job));
  // The jobs with a start in the window at one of these observatories, and those taken out, in the order of the jobs
  // (the orders below break ties by it).
  const step = Math.floor((from - instance.start) / index.stepMs);
  const found = new Set(removedJobs);
  for (const observatory of observatories) for (const bucket of [step, step + 1]) for (const job of index.byStep[observatory]![bucket] ?? []) found.add(job);
  const jobs = [...found].sort((a, b) => a - b);
  const candidates: Candidate[] = [];
  for (const jobIndex of jobs) {
    if (schedule.placed[jobIndex] && !removedJobs.has(jobIndex)) continue;
    const job = instance.jobs[jobIndex]!;
    const sites: Candidate["sites"] = [];
    let count = 0;
    let last = -Infinity;
    job.sites.forEach((site, siteIndex) => {
      if (!observatories.has(site.observatory)) return;
      const first = firstAtOrAfter(site.starts, from);
      const starts = site.starts.slice(first, firstAtOrAfter(site.starts, to));
      if (starts.length === 0 && !removedJobs.has(jobIndex)) return;
      sites.push({ site: siteIndex, starts });
      count += starts.length;
      if (starts.length > 0) last = Math.max(last, starts.at(-1)!);
    });
    if (sites.length === 0) continue;
    candidates.push({ job, sites, count, last: count > 0 ? last : from, value: Math.max(...job.sites.map((site) => site.value)) });
  }
  if (candidates.length <= removed.length) return;
  const before: Assignment[] = removed.map((entry) => schedule.placed[entry.job]!);
  const worth = (assignments: ReadonlyArray<Assignment>) =>
    assignments.reduce((total, assignment) => total + instance.jobs[assignment.job]!.sites[assignment.site]!.value, 0);
  for (const entry of removed) schedule.remove(entry.job);
  let best = { assignments: before, value: worth(before) };
  // The last two orders go with the filling in time order (a plan from scratch); a plan after a change keeps its time.
  const sequences = (window.inTimeOrder ? orders : orders.slice(0, 3)).map((order) => [...candidates].sort(order));
  if (candidates.length < SHUFFLE_BELOW) for (let round = 0; round < SHUFFLES; round += 1) sequences.push(shuffled(candidates, random));
  // The same order fills the window the same way (the schedule is put back after each): each order is tried once.
  const tried = new Set<string>();
  for (const sequence of sequences) {
    const order = sequence.map((candidate) => candidate.job.index).join(" ");
    if (tried.has(order)) continue;
    tried.add(order);
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
  // At one observatory, also in time order (which leaves least idle; across observatories the earliest start says little).
  if (window.inTimeOrder && observatories.size === 1) {
    const filled = fillInTimeOrder(schedule, candidates, from, to);
    const value = worth(filled);
    if (value > best.value + 1e-6) best = { assignments: filled, value };
    for (const assignment of filled) schedule.remove(assignment.job);
  }
  for (const assignment of best.assignments.sort((a, b) => a.start - b.start)) schedule.place(assignment);
}

/**
 * Ruin and recreate, window by window: two hours at a time (or `windowMs`), first at each observatory alone, then
 * (unless `alone`) at all of them together (which moves work between observatories), the runs that start in the
 * window are taken out and the window is filled again, from those and the jobs left out that could
 * start there, in each of a few orders (and, in a window with few candidates, many shuffled ones),
 * each job at its earliest start, and at one observatory also in time order (`fillInTimeOrder`);
 * the best filling is kept when it is worth more than what was there. Greedy choices that a later, better candidate would have needed (a target that sets early
 * behind one that stays up all night) are undone this way.
 */
export function rebuildWindows(schedule: Schedule, options: { windowMs?: number; alone?: boolean; inTimeOrder?: boolean } = {}): void {
  const windowMs = options.windowMs ?? WINDOW_MS;
  const { instance } = schedule;
  const random = seededRandom(instance.jobs.length + 1);
  const every = new Set(instance.observatories.map((_, index) => index));
  // Windows overlap by half.
  const index = jobIndex(instance, windowMs / 2);
  const alone = [...every].map((observatory) => new Set([observatory]));
  for (const observatories of options.alone ? alone : [...alone, every]) {
    for (let from = instance.start; from < instance.horizonEnd; from += index.stepMs) {
      rebuildWindow(schedule, index, { observatories, from, to: from + windowMs, inTimeOrder: options.inTimeOrder ?? true }, random);
    }
  }
}

/** Per observatory and step of the horizon (half a window: a window covers two), the jobs with a start there, in the order of the jobs. */
interface JobIndex {
  stepMs: number;
  byStep: number[][][];
}

function jobIndex(instance: Instance, stepMs: number): JobIndex {
  const steps = Math.ceil((instance.horizonEnd - instance.start) / stepMs) + 1;
  const byStep = instance.observatories.map(() => Array.from({ length: steps }, (): number[] => []));
  for (const job of instance.jobs) {
    for (const site of job.sites) {
      for (const start of site.starts) {
        const jobs = byStep[site.observatory]![Math.floor((start - instance.start) / stepMs)]!;
        if (jobs.at(-1) !== job.index) jobs.push(job.index);
      }
    }
  }
  return { stepMs, byStep };
}
