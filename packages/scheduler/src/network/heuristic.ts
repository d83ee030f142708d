import { windowOf } from "../queue";
import { PLAN_STEP_MS } from "./inputs";
import { fitsAt, type Instance, type Job } from "./instance";
import { rebuildWindows } from "./rebuild";
import { firstAtOrAfter, pointAtOrAfter, Schedule, type Assignment } from "./schedule";

/** How many rounds of repair the heuristic makes at most (each one pass over what is left out). */
const REPAIR_ROUNDS = 4;
/** For how many of a job's cheapest placements the repair tries to move the runs in the way elsewhere. */
const RELOCATION_TRIES = 6;

/**
 * Contention: per observatory and point, how much value the jobs not yet placed could put there
 * (each spreads its value evenly over its starts). A job placed where contention is lowest takes
 * least from the jobs that come after it.
 */
class Contention {
  readonly demand: Float64Array[];

  constructor(private readonly instance: Instance) {
    this.demand = instance.points.map((points) => new Float64Array(points.length));
    for (const job of instance.jobs) this.add(job, 1);
  }

  private span(observatory: number, start: number, durationMs: number) {
    const points = this.instance.points[observatory]!;
    return { from: pointAtOrAfter(points, start), to: pointAtOrAfter(points, start + durationMs) };
  }

  add(job: Job, sign: 1 | -1): void {
    const count = job.sites.reduce((total, site) => total + site.starts.length, 0);
    if (count === 0) return;
    for (const site of job.sites) {
      const share = (sign * site.value) / count;
      const demand = this.demand[site.observatory]!;
      for (const start of site.starts) {
        const { from, to } = this.span(site.observatory, start, site.durationMs);
        for (let point = from; point < to; point += 1) demand[point]! += share;
      }
    }
  }

  cost(observatory: number, start: number, durationMs: number): number {
    const { from, to } = this.span(observatory, start, durationMs);
    const demand = this.demand[observatory]!;
    let total = 0;
    for (let point = from; point < to; point += 1) total += demand[point]!;
    return total;
  }
}

/** The order of construction: highest priority first, then the job with the fewest starts, then dispatch order, runs in order. */
function constructionOrder(instance: Instance): Job[] {
  const startCount = (job: Job) => job.sites.reduce((total, site) => total + site.starts.length, 0);
  const order = new Map(instance.input.observations.map((observation, index) => [observation.id, index]));
  return [...instance.jobs].sort(
    (a, b) =>
      b.observation.priority - a.observation.priority ||
      startCount(instance.jobs[a.index - a.run]!) - startCount(instance.jobs[b.index - b.run]!) ||
      order.get(a.observation.id)! - order.get(b.observation.id)! ||
      a.run - b.run,
  );
}

/**
 * Starts right at the end of a run already planned at the site's observatory, between the job's
 * points: where the next point is one of its starts, a start up to five minutes earlier is likely
 * to hold too (and is checked whole), and runs back to back waste none of the night.
 */
function packedStarts(schedule: Schedule, job: Job, siteIndex: number): number[] {
  const site = job.sites[siteIndex]!;
  const found: number[] = [];
  for (const entry of schedule.timelines[site.observatory]!) {
    const end = entry.end;
    if (end % PLAN_STEP_MS === 0) continue;
    const next = site.starts[firstAtOrAfter(site.starts, end)];
    if (next === undefined || next - end >= PLAN_STEP_MS) continue;
    if (schedule.canPlace(job, siteIndex, end) && fitsAt(schedule.instance, job, siteIndex, end)) found.push(end);
  }
  return found;
}

/** The free start of least contention (then the earliest) for the job, or null. */
function bestFreePlacement(schedule: Schedule, contention: Contention, job: Job): Assignment | null {
  let best: Assignment | null = null;
  let bestCost = Infinity;
  job.sites.forEach((site, siteIndex) => {
    const consider = (start: number) => {
      const cost = contention.cost(site.observatory, start, site.durationMs) - site.value;
      if (cost < bestCost - 1e-9 || (cost <= bestCost + 1e-9 && best && start < best.start)) {
        best = { job: job.index, site: siteIndex, start };
        bestCost = cost;
      }
    };
    for (const start of site.starts) if (schedule.canPlace(job, siteIndex, start)) consider(start);
    if (site.starts.length > 0) for (const start of packedStarts(schedule, job, siteIndex)) consider(start);
  });
  return best;
}

/**
 * Whether the runs in the way can all move elsewhere (each to a free start at one of its sites,
 * outside [start, end) at that observatory): the moves, or null.
 */
function relocations(schedule: Schedule, blocking: ReadonlyArray<number>, observatory: number, start: number, end: number): Assignment[] | null {
  const moves: Assignment[] = [];
  const removed: Assignment[] = [];
  for (const index of blocking) {
    removed.push(schedule.placed[index]!);
    schedule.remove(index);
  }
  let ok = true;
  for (const index of blocking) {
    const job = schedule.instance.jobs[index]!;
    let move: Assignment | null = null;
    job.sites.forEach((site, siteIndex) => {
      if (move) return;
      for (const at of site.starts) {
        const clash = site.observatory === observatory && at < end && at + site.durationMs > start;
        if (!clash && schedule.canPlace(job, siteIndex, at)) {
          move = { job: job.index, site: siteIndex, start: at };
          break;
        }
      }
    });
    if (!move) {
      ok = false;
      break;
    }
    schedule.place(move);
    moves.push(move);
  }
  for (const move of moves) schedule.remove(move.job);
  for (const assignment of removed) schedule.place(assignment);
  return ok ? moves : null;
}

/**
 * One repair of a job left out: the placement that gains most, where the runs in its way either
 * move elsewhere or are worth less than it is. Returns whether the schedule changed.
 */
function repair(schedule: Schedule, job: Job, leftOut: Set<number>): boolean {
  const options: Array<{ assignment: Assignment; blocking: number[]; loss: number; value: number }> = [];
  job.sites.forEach((site, siteIndex) => {
    for (const start of site.starts) {
      const end = start + site.durationMs;
      const blocking = schedule.overlapping(site.observatory, start, end);
      if (blocking.length === 0 || blocking.some((entry) => !schedule.removable(entry.job))) continue;
      const jobs = blocking.map((entry) => entry.job);
      if (!schedule.cadenceAllows(job, start, end, new Set(jobs))) continue;
      const loss = jobs.reduce((total, index) => total + schedule.instance.jobs[index]!.sites[schedule.placed[index]!.site]!.value, 0);
      options.push({ assignment: { job: job.index, site: siteIndex, start }, blocking: jobs, loss, value: site.value });
    }
  });
  // The cheapest to clear first: moving the runs in the way costs nothing when they find room elsewhere.
  options.sort((a, b) => a.loss - b.loss || a.assignment.start - b.assignment.start);
  let best: { assignment: Assignment; blocking: number[]; moves: Assignment[]; gain: number } | null = null;
  for (const [rank, option] of options.entries()) {
    const site = job.sites[option.assignment.site]!;
    const { start } = option.assignment;
    const moves =
      rank < RELOCATION_TRIES && option.blocking.length <= 3 ? relocations(schedule, option.blocking, site.observatory, start, start + site.durationMs) : null;
    const gain = moves ? option.value : option.value - option.loss;
    if (gain > 1e-9 && (!best || gain > best.gain)) best = { assignment: option.assignment, blocking: option.blocking, moves: moves ?? [], gain };
    if (best && best.gain >= option.value) break;
  }
  if (!best) return false;
  const chosen: { assignment: Assignment; blocking: number[]; moves: Assignment[] } = best;
  const previous = chosen.blocking.map((index) => schedule.placed[index]!);
  for (const index of chosen.blocking) schedule.remove(index);
  for (const move of chosen.moves) schedule.place(move);
  if (!schedule.canPlace(job, chosen.assignment.site, chosen.assignment.start)) {
    // A move or an eviction left the allocation short after all: put back what was there.
    for (const move of chosen.moves) schedule.remove(move.job);
    for (const assignment of previous) schedule.place(assignment);
    return false;
  }
  schedule.place(chosen.assignment);
  leftOut.delete(job.index);
  const moved = new Set(chosen.moves.map((move) => move.job));
  for (const index of chosen.blocking) if (!moved.has(index)) leftOut.add(index);
  return true;
}

/** Rounds of repair over the jobs left out (those with a start somewhere), highest priority first, until a round changes nothing. */
function repairRounds(schedule: Schedule, contention: Contention): void {
  const { instance } = schedule;
  const leftOut = new Set(
    instance.jobs.filter((job) => !schedule.placed[job.index] && job.sites.some((site) => site.starts.length > 0)).map((job) => job.index),
  );
  for (let round = 0; round < REPAIR_ROUNDS && leftOut.size > 0; round += 1) {
    let changed = false;
    const order = [...leftOut].sort((a, b) => instance.jobs[b]!.observation.priority - instance.jobs[a]!.observation.priority || a - b);
    for (const index of order) {
      if (!leftOut.has(index) || schedule.placed[index]) continue;
      const job = instance.jobs[index]!;
      const free = bestFreePlacement(schedule, contention, job);
      if (free) {
        schedule.place(free);
        leftOut.delete(index);
        changed = true;
      } else if (repair(schedule, job, leftOut)) changed = true;
    }
    if (!changed) break;
  }
}

/** The windows the improvement rebuilds: longer than the first rebuild's, so their edges fall elsewhere. */
const IMPROVING_WINDOW_MS = 3 * 3_600_000;

/**
 * More for a plan from scratch (ADR 0051), kept by the plans after a change, which start from it: each observatory's runs
 * start as early as they hold (which gathers the minutes lost between runs into gaps that work fits in), the jobs left
 * out are repaired in, and each observatory's windows are rebuilt once more (three hours long, at each alone). Never worth less: each step keeps or adds value.
 */
export function improveSchedule(schedule: Schedule): void {
  const contention = new Contention(schedule.instance);
  for (const assignment of schedule.assignments()) contention.add(schedule.instance.jobs[assignment.job]!, -1);
  startRunsEarlier(schedule);
  repairRounds(schedule, contention);
  rebuildWindows(schedule, { windowMs: IMPROVING_WINDOW_MS, alone: true, inTimeOrder: true });
  repairRounds(schedule, contention);
}

/**
 * The heuristic: jobs in order of priority, each at its free start of least contention; then
 * rounds of repair, in which each job left out takes the start that gains most, moving the runs in
 * its way elsewhere or putting out those worth less, and what was put out may find room again;
 * then each observatory's time is rebuilt two hours at a time (`rebuildWindows`), and repaired again.
 * `seed` (a previous plan's assignments still possible) is placed first, which makes a plan after
 * one change mostly the plan before it (`seedIsAPlan`: the rounds of repair before the rebuild are left out then).
 */
export function planHeuristically(instance: Instance, options: { seed?: ReadonlyArray<Assignment>; seedIsAPlan?: boolean } = {}): Schedule {
  const schedule = new Schedule(instance);
  const contention = new Contention(instance);
  for (const assignment of options.seed ?? []) {
    const job = instance.jobs[assignment.job]!;
    if (schedule.placed[job.index] || !schedule.canPlace(job, assignment.site, assignment.start)) continue;
    schedule.place(assignment);
    contention.add(job, -1);
  }
  for (const job of constructionOrder(instance)) {
    if (schedule.placed[job.index]) continue;
    const placement = bestFreePlacement(schedule, contention, job);
    if (placement) {
      schedule.place(placement);
      contention.add(job, -1);
    }
  }
  // A plan before a change was repaired and rebuilt already: what the change opens up is repaired once, after the rebuild.
  if (!options.seedIsAPlan) repairRounds(schedule, contention);
  // After a change, not in time order: its time goal; the plan before it was filled in time order.
  rebuildWindows(schedule, { inTimeOrder: !options.seedIsAPlan });
  repairRounds(schedule, contention);
  if (options.seedIsAPlan) startRunsEarlier(schedule);
  return schedule;
}

/**
 * Each observatory's runs, in order, each moved to its earliest start there that holds (the observatory free, the end
 * of the run before, the start of its window or its allocation's period, or the first of its starts after those):
 * worth the same, and nothing waits for no gain. A plan seeded by the one before keeps its runs where they were when
 * the work before them went (a cancel, a run that ended early); a plan from scratch prefers the earlier of two plans
 * worth the same, and this holds a plan after a change to that too.
 */
function startRunsEarlier(schedule: Schedule): void {
  const { instance } = schedule;
  instance.observatories.forEach((observatory, index) => {
    const free = Math.max(instance.start, observatory.busyUntil?.getTime() ?? -Infinity);
    for (const entry of [...schedule.timelines[index]!]) {
      const assignment = schedule.placed[entry.job]!;
      const job = instance.jobs[entry.job]!;
      const site = job.sites[assignment.site]!;
      const timeline = schedule.timelines[index]!;
      const from = Math.max(timeline[timeline.indexOf(entry) - 1]?.end ?? -Infinity, free);
      if (from >= assignment.start) continue;
      const opens = [windowOf(job.observation.doc).start, site.budget >= 0 ? instance.budgets[site.budget]!.from : -Infinity];
      const known = site.starts[firstAtOrAfter(site.starts, from)];
      const tries = [from, ...opens, known ?? Infinity].filter((start) => start >= from && start < assignment.start).sort((a, b) => a - b);
      schedule.remove(entry.job);
      const earlier = tries.find(
        (start) =>
          schedule.canPlace(job, assignment.site, start) &&
          (site.starts[firstAtOrAfter(site.starts, start)] === start || fitsAt(instance, job, assignment.site, start)),
      );
      schedule.place({ ...assignment, start: earlier ?? assignment.start });
    }
  });
}
