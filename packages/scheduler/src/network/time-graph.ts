import type { NetworkBlock } from "./inputs";
import type { Instance } from "./instance";
import { blockLocator, type TimeIndexedModel } from "./milp";

/** The coarsest step of time the graph may take: finer steps only cost time (each run loses less than a step to rounding). */
const FINEST_STEP_MS = 1000;

/**
 * One observatory's time as a graph for a longest path (ADR 0048): a state is "free from step S"
 * (moment origin + S × stepMs); from S the path waits to S + 1, or runs a job whose interval of
 * starts holds S, arriving at S + ⌊duration / step⌋. An arc per job, site and interval of starts,
 * as columns of arrays (the path is found tens of times over some hundred thousand states).
 */
export interface ObservatoryGraph {
  observatory: number;
  job: Int32Array;
  site: Int32Array;
  /** The allocation a run there is charged to, or -1. */
  budget: Int32Array;
  /** The first and last step the arc leaves from (both included). */
  from: Int32Array;
  to: Int32Array;
  /** Steps the run takes: ⌊duration / step⌋, never more than it takes from any start in the interval. */
  length: Int32Array;
  /** What a run adds to the objective (priority × estimated seconds), and its minutes (charged to its allocation). */
  value: Float64Array;
  minutes: Float64Array;
  /** The arcs by last step, latest first: the order the backward pass takes them in. */
  byLastStep: Int32Array;
  steps: number;
}

export interface TimeGraphs {
  origin: number;
  stepMs: number;
  observatories: ObservatoryGraph[];
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/**
 * Per job and site, the moments a run may start, as closed intervals [from, to] in epoch
 * milliseconds: the MILP's columns (ADR 0044), which hold every start the plan's model allows (a
 * start on a point: that point; a column between two points: every moment between them, closed
 * here, which only adds starts). Touching intervals are merged.
 */
function startIntervals(instance: Instance, model: TimeIndexedModel): Array<Array<Array<[number, number]>>> {
  const intervals = instance.jobs.map((job) => job.sites.map((): Array<[number, number]> => []));
  for (const column of model.columns) intervals[column.job]![column.site]!.push([column.start, column.latest]);
  for (const sites of intervals) {
    for (const [index, spans] of sites.entries()) {
      spans.sort((a, b) => a[0] - b[0]);
      const merged: Array<[number, number]> = [];
      for (const [from, to] of spans) {
        const last = merged.at(-1);
        if (last && from <= last[1]) last[1] = Math.max(last[1], to);
        else merged.push([from, to]);
      }
      sites[index] = merged;
    }
  }
  return intervals;
}

/**
 * The instance's graphs. The step is the greatest common divisor of every estimate and every
 * interval's ends from the plan's start (whole seconds at least), so that rounding a moment down to
 * its step loses nothing where the inputs are whole steps; where they are not, rounding down still
 * only adds paths. Runs of no duration add nothing to the objective and are left out.
 */
export function timeGraphs(instance: Instance, model: TimeIndexedModel): TimeGraphs {
  const origin = instance.start;
  const intervals = startIntervals(instance, model);
  let common = 0;
  let shortest = Infinity;
  instance.jobs.forEach((job, jobIndex) =>
    job.sites.forEach((site, siteIndex) => {
      if (site.durationMs <= 0 || intervals[jobIndex]![siteIndex]!.length === 0) return;
      shortest = Math.min(shortest, site.durationMs);
      common = gcd(common, Math.floor(site.durationMs));
      for (const [from, to] of intervals[jobIndex]![siteIndex]!) common = gcd(gcd(common, Math.floor(from - origin)), Math.floor(to - origin));
    }),
  );
  // A run shorter than a step would take no step, and the path could repeat it without end.
  const stepMs = Math.max(1, Math.min(Math.max(common, FINEST_STEP_MS), Number.isFinite(shortest) ? shortest : FINEST_STEP_MS));
  const stepOf = (ms: number) => Math.floor((ms - origin) / stepMs);
  const observatories = instance.observatories.map((_, observatory) => {
    const arcs: Array<{ job: number; site: number; budget: number; from: number; to: number; length: number; value: number; minutes: number }> = [];
    instance.jobs.forEach((job, jobIndex) =>
      job.sites.forEach((site, siteIndex) => {
        if (site.observatory !== observatory || site.durationMs <= 0) return;
        const length = Math.floor(site.durationMs / stepMs);
        for (const [from, to] of intervals[jobIndex]![siteIndex]!) {
          arcs.push({
            job: jobIndex,
            site: siteIndex,
            budget: site.budget,
            from: stepOf(from),
            to: stepOf(to),
            length,
            value: site.value,
            minutes: site.durationMs / 60_000,
          });
        }
      }),
    );
    type Arc = (typeof arcs)[number];
    const integers = (read: (arc: Arc) => number) => Int32Array.from(arcs, read);
    const reals = (read: (arc: Arc) => number) => Float64Array.from(arcs, read);
    const byLastStep = Int32Array.from(arcs.keys()).sort((a, b) => arcs[b]!.to - arcs[a]!.to);
    return {
      observatory,
      job: integers((arc) => arc.job),
      site: integers((arc) => arc.site),
      budget: integers((arc) => arc.budget),
      from: integers((arc) => arc.from),
      to: integers((arc) => arc.to),
      length: integers((arc) => arc.length),
      value: reals((arc) => arc.value),
      minutes: reals((arc) => arc.minutes),
      byLastStep,
      steps: arcs.reduce((last, arc) => Math.max(last, arc.to + 1), 0),
    };
  });
  return { origin, stepMs, observatories };
}

/**
 * The longest path through one observatory's graph with a weight per arc (arcs of weight ≤ 0 are
 * never worth taking: waiting is as good): its value and its arcs in order. Backward over the
 * steps: best[S] = max(best[S + 1], max over the arcs leaving S of weight + best[S + length]).
 */
export function longestPath(graph: ObservatoryGraph, weight: Float64Array): { value: number; arcs: number[] } {
  const { steps, from, to, length, byLastStep } = graph;
  let longest = 0;
  for (const arcLength of length) longest = Math.max(longest, arcLength);
  const best = new Float64Array(steps + longest + 1);
  const taken = new Int32Array(steps).fill(-1);
  const active = new Int32Array(byLastStep.length);
  let activeCount = 0;
  let next = 0;
  for (let step = steps - 1; step >= 0; step -= 1) {
    while (next < byLastStep.length && to[byLastStep[next]!]! >= step) {
      const arc = byLastStep[next++]!;
      if (weight[arc]! > 0) active[activeCount++] = arc;
    }
    let value = best[step + 1]!;
    let choice = -1;
    for (let index = 0; index < activeCount; index += 1) {
      const arc = active[index]!;
      if (from[arc]! > step) {
        active[index--] = active[--activeCount]!;
        continue;
      }
      const through = weight[arc]! + best[step + length[arc]!]!;
      if (through > value) {
        value = through;
        choice = arc;
      }
    }
    best[step] = value;
    taken[step] = choice;
  }
  const arcs: number[] = [];
  for (let step = 0; step < steps;) {
    const arc = taken[step]!;
    if (arc < 0) step += 1;
    else {
      arcs.push(arc);
      step += length[arc]!;
    }
  }
  return { value: best[0]!, arcs };
}

/**
 * A plan's runs as paths of the graphs: the runs whose start lies in no arc of their job there, or
 * that start before the run before them at the observatory arrives (none when every plan is a path,
 * as ADR 0048 argues), and the arcs each observatory's path takes.
 */
export function planInGraphs(instance: Instance, graphs: TimeGraphs, blocks: ReadonlyArray<NetworkBlock>) {
  const locate = blockLocator(instance);
  const outside: string[] = [];
  const paths = graphs.observatories.map((): number[] => []);
  const arrival = graphs.observatories.map(() => 0);
  const ordered = [...blocks].sort((a, b) => a.start.getTime() - b.start.getTime());
  for (const block of ordered) {
    const { name, job, siteIndex } = locate(block);
    if (!job) {
      outside.push(`${name}: no such job or site`);
      continue;
    }
    const observatory = job.sites[siteIndex]!.observatory;
    const graph = graphs.observatories[observatory]!;
    const step = Math.floor((block.start.getTime() - graphs.origin) / graphs.stepMs);
    const arc = graph.job.findIndex(
      (arcJob, index) => arcJob === job.index && graph.site[index] === siteIndex && graph.from[index]! <= step && step <= graph.to[index]!,
    );
    if (arc < 0) outside.push(`${name}: no arc from step ${step}`);
    else if (step < arrival[observatory]!) outside.push(`${name}: before the run before it arrives`);
    else {
      paths[observatory]!.push(arc);
      arrival[observatory] = step + graph.length[arc]!;
    }
  }
  return { outside, paths };
}
