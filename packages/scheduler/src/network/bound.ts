import type { Highs } from "highs";
import { windowOf } from "../queue";
import type { NetworkBlock } from "./inputs";
import type { Instance } from "./instance";
import { blockLocator, statusName, type TimeIndexedModel } from "./milp";

const MINUTE_MS = 60_000;

/**
 * An upper bound on the optimum of the plan's model (ADR 0047), small enough to solve at full size:
 * a linear program over time buckets in which every plan is a solution. x(j, o, b) is how many
 * minutes of job j run at observatory o inside bucket b (`bucketMinutes` long). A job may have
 * minutes in a bucket only where some run of it there could lie (the union of the spans of its
 * columns in the MILP, which hold every start the plan's model allows), at most as many as that
 * union has in the bucket. Rows: each job at most one whole run (Σ x / its estimate there ≤ 1), each
 * bucket at most the minutes of it that some run could use, each allocation at most what it has
 * left. A minute of job j is worth priority × 60, so a whole run is worth what it adds to the
 * objective. Left out: that a run is one piece in one span, the cadences, the order of runs.
 */
export interface BucketBound {
  /** The bound: the objective of a dual solution of the LP (weak duality), so valid whatever the solver's tolerances. */
  bound: number;
  /** The LP's optimum as the solver reports it. */
  lpObjective: number;
  status: string;
  columns: number;
  rows: number;
  bucketMinutes: number;
  /** The LP's minutes per priority (index 1 to 10): where its optimum puts the time, to compare with a plan's. */
  minutesByPriority: number[];
  /** The dual solution's multipliers of each job's row and each allocation's (per minute): where the Lagrangian bound starts (ADR 0048). */
  multipliers: { jobs: Float64Array; budgets: Float64Array };
}

/** Merged [from, to) intervals in epoch milliseconds. */
type Spans = Array<[number, number]>;

function merged(spans: Spans): Spans {
  spans.sort((a, b) => a[0] - b[0]);
  const out: Spans = [];
  for (const [from, to] of spans) {
    const last = out.at(-1);
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else out.push([from, to]);
  }
  return out;
}

/** Per bucket index (from `origin`), the milliseconds of the spans inside it. */
function perBucket(spans: Spans, bucketMs: number, origin: number): Map<number, number> {
  const inside = new Map<number, number>();
  for (const [from, to] of spans) {
    for (let bucket = Math.floor((from - origin) / bucketMs); origin + bucket * bucketMs < to; bucket += 1) {
      const overlap = Math.min(to, origin + (bucket + 1) * bucketMs) - Math.max(from, origin + bucket * bucketMs);
      if (overlap > 0) inside.set(bucket, (inside.get(bucket) ?? 0) + overlap);
    }
  }
  return inside;
}

/**
 * The bucket LP of the instance (see `BucketBound`): per job and site, the stretches of time a run
 * of it could cover, read from the MILP's columns (a start on a point covers [s, s + d); a stretch
 * between two points, every start inside it, so (p, latest + d)), cut to the job's window.
 */
export function bucketModel(instance: Instance, model: TimeIndexedModel, bucketMinutes: number) {
  const bucketMs = bucketMinutes * MINUTE_MS;
  const origin = Math.floor(instance.start / bucketMs) * bucketMs;
  const spans = instance.jobs.map((job) => job.sites.map((): Spans => []));
  for (const column of model.columns) {
    const job = instance.jobs[column.job]!;
    const durationMs = job.sites[column.site]!.durationMs;
    const window = windowOf(job.observation.doc);
    const from = Math.max(column.start, window.start);
    const to = Math.min(column.latest + durationMs, window.finishBy);
    if (to > from) spans[column.job]![column.site]!.push([from, to]);
  }
  const variables: Array<{ job: number; site: number; bucket: number; upper: number; perMinute: number }> = [];
  const usable = instance.observatories.map((): Spans => []);
  instance.jobs.forEach((job, jobIndex) =>
    job.sites.forEach((site, siteIndex) => {
      const union = merged(spans[jobIndex]![siteIndex]!);
      usable[site.observatory]!.push(...union);
      const perMinute = site.value / (site.durationMs / MINUTE_MS);
      for (const [bucket, ms] of perBucket(union, bucketMs, origin))
        variables.push({ job: jobIndex, site: siteIndex, bucket, upper: Math.min(ms, site.durationMs) / MINUTE_MS, perMinute });
    }),
  );
  const capacity = usable.map((union) => perBucket(merged(union), bucketMs, origin));
  return { bucketMs, origin, spans: spans.map((sites) => sites.map(merged)), variables, capacity };
}

type Buckets = ReturnType<typeof bucketModel>;

/** The LP's rows over its variables: coefficients per variable, and each row's upper bound. */
function rowsOf(instance: Instance, buckets: Buckets) {
  const upper: number[] = [];
  const jobRow = new Map<number, number>();
  const capacityRow = new Map<string, number>();
  const budgetRows = instance.budgets.map((budget) => upper.push(budget.leftMs / MINUTE_MS) - 1);
  const entries = buckets.variables.map((variable) => {
    const site = instance.jobs[variable.job]!.sites[variable.site]!;
    let job = jobRow.get(variable.job);
    if (job === undefined) jobRow.set(variable.job, (job = upper.push(1) - 1));
    const key = `${site.observatory} ${variable.bucket}`;
    let bucket = capacityRow.get(key);
    if (bucket === undefined) capacityRow.set(key, (bucket = upper.push(buckets.capacity[site.observatory]!.get(variable.bucket)! / MINUTE_MS) - 1));
    const rows = [job, bucket];
    const coefficients = [MINUTE_MS / site.durationMs, 1];
    if (site.budget >= 0) {
      rows.push(budgetRows[site.budget]!);
      coefficients.push(1);
    }
    return { rows, coefficients };
  });
  return { upper, entries, jobRow, budgetRows };
}

/**
 * A plan's runs as a solution of the bucket LP: the minutes of each run outside the spans of its
 * job there (none when the LP holds the plan), the rows it breaks, and its objective there.
 */
export function planInBuckets(instance: Instance, buckets: Buckets, blocks: ReadonlyArray<NetworkBlock>) {
  const { upper, entries } = rowsOf(instance, buckets);
  const index = new Map(buckets.variables.map((variable, at) => [`${variable.job} ${variable.site} ${variable.bucket}`, at]));
  const locate = blockLocator(instance);
  const activity = new Float64Array(upper.length);
  const outside: string[] = [];
  let objective = 0;
  for (const block of blocks) {
    const { name, job, siteIndex } = locate(block);
    if (!job) {
      outside.push(`${name}: no such job or site`);
      continue;
    }
    const from = block.start.getTime();
    const to = block.end.getTime();
    if (!buckets.spans[job.index]![siteIndex]!.some(([start, end]) => start <= from && to <= end)) outside.push(`${name}: outside its spans`);
    for (const [bucket, ms] of perBucket([[from, to]], buckets.bucketMs, buckets.origin)) {
      const at = index.get(`${job.index} ${siteIndex} ${bucket}`);
      if (at === undefined) {
        outside.push(`${name}: no variable in bucket ${bucket}`);
        continue;
      }
      const minutes = ms / MINUTE_MS;
      if (minutes > buckets.variables[at]!.upper + 1e-9) outside.push(`${name}: more than its bound in bucket ${bucket}`);
      entries[at]!.rows.forEach((row, position) => (activity[row]! += entries[at]!.coefficients[position]! * minutes));
      objective += buckets.variables[at]!.perMinute * minutes;
    }
  }
  const brokenRows = [...activity.keys()].filter((row) => activity[row]! > upper[row]! + 1e-6).length;
  return { outside, brokenRows, objective };
}

/**
 * Solves the bucket LP with HiGHS and returns a bound certified by weak duality: for any y ≥ 0 on
 * the rows, Σ y·upper + Σ max(0, c − Aᵀy)·(column bound) is at least every solution's objective. The
 * row duals HiGHS reports are taken as y (clipped at zero, in either sign convention; the smaller
 * bound is kept, both being valid).
 */
export function bucketBound(
  instance: Instance,
  options: { highs: Highs; model: TimeIndexedModel; bucketMinutes?: number; timeLimitSeconds?: number },
): BucketBound {
  const { highs } = options;
  const bucketMinutes = options.bucketMinutes ?? 15;
  const buckets = bucketModel(instance, options.model, bucketMinutes);
  const { upper, entries, jobRow, budgetRows } = rowsOf(instance, buckets);
  const count = buckets.variables.length;
  const multipliers = { jobs: new Float64Array(instance.jobs.length), budgets: new Float64Array(instance.budgets.length) };
  if (count === 0) return { bound: 0, lpObjective: 0, status: "Optimal", columns: 0, rows: 0, bucketMinutes, minutesByPriority: [], multipliers };
  const starts = new Int32Array(count + 1);
  let nonZeros = 0;
  entries.forEach((entry, at) => {
    starts[at] = nonZeros;
    nonZeros += entry.rows.length;
  });
  starts[count] = nonZeros;
  const indices = new Int32Array(nonZeros);
  const values = new Float64Array(nonZeros);
  entries.forEach((entry, at) => {
    indices.set(entry.rows, starts[at]!);
    values.set(entry.coefficients, starts[at]!);
  });
  const cost = Float64Array.from(buckets.variables, (variable) => variable.perMinute);
  const columnUpper = Float64Array.from(buckets.variables, (variable) => variable.upper);
  const lp = highs.createModel({
    numCols: count,
    numRows: upper.length,
    sense: highs.constants.objectiveSense.maximize,
    colCost: cost,
    colLower: new Float64Array(count),
    colUpper: columnUpper,
    rowLower: new Float64Array(upper.length).fill(-highs.infinity),
    rowUpper: Float64Array.from(upper),
    matrix: { format: "csc", numRows: upper.length, numCols: count, starts, indices, values },
  });
  try {
    lp.options.set({ output_flag: false, ...(options.timeLimitSeconds ? { time_limit: options.timeLimitSeconds } : {}) });
    lp.run();
    const status = statusName(highs, lp.getModelStatus());
    const { colValue, rowDual } = lp.getSolution();
    const lpObjective = colValue.reduce((total, value, at) => total + value * cost[at]!, 0);
    const dualBound = (sign: number) => {
      const y = Float64Array.from(rowDual, (dual) => Math.max(0, sign * dual));
      let total = upper.reduce((sum, bound, row) => sum + y[row]! * bound, 0);
      entries.forEach((entry, at) => {
        let reduced = cost[at]!;
        entry.rows.forEach((row, position) => (reduced -= y[row]! * entry.coefficients[position]!));
        if (reduced > 0) total += reduced * columnUpper[at]!;
      });
      return { total, y };
    };
    const minutesByPriority: number[] = [];
    colValue.forEach((minutes, at) => {
      const priority = Math.round(cost[at]! / 60);
      minutesByPriority[priority] = (minutesByPriority[priority] ?? 0) + minutes;
    });
    const [dual] = [dualBound(1), dualBound(-1)].sort((a, b) => a.total - b.total);
    for (const [job, row] of jobRow) multipliers.jobs[job] = dual!.y[row]!;
    budgetRows.forEach((row, budget) => (multipliers.budgets[budget] = dual!.y[row]!));
    return { bound: dual!.total, lpObjective, status, columns: count, rows: upper.length, bucketMinutes, minutesByPriority, multipliers };
  } finally {
    lp.dispose();
  }
}
