import type { Highs } from "highs";
import type { Instance } from "./instance";
import { pointAtOrAfter, Schedule, type Assignment } from "./schedule";

const MINUTE_MS = 60_000;

/** What the MILP solver answered: the schedule it found, its status, and the bound on the optimum it proved. */
export interface ExactSolution {
  schedule: Schedule;
  status: string;
  /** An upper bound on the model's optimum (the solver's dual bound): the best any plan of this model can reach. */
  bound: number;
  /** The gap the solver proved between its plan and `bound`. */
  gap: number;
}

/** The HiGHS WebAssembly runtime, loaded once per process (it compiles about 2 MB of WebAssembly). */
let runtime: Promise<Highs> | undefined;
export function loadSolver(): Promise<Highs> {
  runtime ??= import("highs").then((module) => module.default());
  return runtime;
}

/**
 * The time-indexed model of the plan (docs/decisions, "the network plan"): a binary x per job,
 * site and start; each job at most once; at each observatory's point at most one run covering it;
 * each allocation's runs within what it has left; each cadence's run k+1 only after run k, an
 * interval after its end. Maximizes Σ priority × estimated seconds. Solved by HiGHS to `gap`.
 */
export function solveExactly(instance: Instance, options: { highs: Highs; gap?: number; timeLimitSeconds?: number }): ExactSolution {
  const { highs } = options;
  const columns: Array<Assignment & { value: number; rows: number[]; coefficients: number[] }> = [];
  const rowLower: number[] = [];
  const rowUpper: number[] = [];
  const newRow = (lower: number, upper: number): number => {
    rowUpper.push(upper);
    return rowLower.push(lower) - 1;
  };

  const jobColumns: number[][] = instance.jobs.map(() => []);
  for (const job of instance.jobs) {
    job.sites.forEach((site, siteIndex) => {
      for (const start of site.starts) {
        jobColumns[job.index]!.push(columns.length);
        columns.push({ job: job.index, site: siteIndex, start, value: site.value, rows: [], coefficients: [] });
      }
    });
  }
  const entry = (column: number, row: number, coefficient: number) => {
    columns[column]!.rows.push(row);
    columns[column]!.coefficients.push(coefficient);
  };
  // Each job at most once.
  for (const indexes of jobColumns) {
    if (indexes.length < 2) continue;
    const row = newRow(-Infinity, 1);
    for (const column of indexes) entry(column, row, 1);
  }
  // At each observatory's point, at most one run covering it.
  const covering = instance.points.map((points) => points.map((): number[] => []));
  for (let column = 0; column < columns.length; column += 1) {
    const { job, site: siteIndex, start } = columns[column]!;
    const site = instance.jobs[job]!.sites[siteIndex]!;
    const points = instance.points[site.observatory]!;
    const to = pointAtOrAfter(points, start + site.durationMs);
    for (let point = pointAtOrAfter(points, start); point < to; point += 1) covering[site.observatory]![point]!.push(column);
  }
  for (const perPoint of covering) {
    for (const indexes of perPoint) {
      if (indexes.length < 2) continue;
      const row = newRow(-Infinity, 1);
      for (const column of indexes) entry(column, row, 1);
    }
  }
  // Each allocation's runs within what it has left (minutes).
  const budgetRows = instance.budgets.map((budget) => newRow(-Infinity, budget.leftMs / MINUTE_MS));
  for (let column = 0; column < columns.length; column += 1) {
    const site = instance.jobs[columns[column]!.job]!.sites[columns[column]!.site]!;
    if (site.budget >= 0) entry(column, budgetRows[site.budget]!, site.durationMs / MINUTE_MS);
  }
  // Cadences: run k only if run k−1 (y_k ≤ y_{k−1}), and, if so, starting an interval after its end:
  // S_k − E_{k−1} − (M + I)·y_k ≥ −M, in minutes from the plan's start, where M is the horizon.
  const horizonMinutes = (instance.horizonEnd - instance.start) / MINUTE_MS + 1;
  const minutes = (ms: number) => (ms - instance.start) / MINUTE_MS;
  for (const job of instance.jobs) {
    if (job.previous < 0) continue;
    const order = newRow(-Infinity, 0);
    const gapRow = newRow(-horizonMinutes, Infinity);
    const intervalMinutes = job.intervalMs / MINUTE_MS;
    for (const column of jobColumns[job.index]!) {
      entry(column, order, 1);
      entry(column, gapRow, minutes(columns[column]!.start) - (horizonMinutes + intervalMinutes));
    }
    for (const column of jobColumns[job.previous]!) {
      const site = instance.jobs[job.previous]!.sites[columns[column]!.site]!;
      entry(column, order, -1);
      entry(column, gapRow, -minutes(columns[column]!.start + site.durationMs));
    }
  }

  const schedule = new Schedule(instance);
  if (columns.length === 0) return { schedule, status: "Optimal", bound: 0, gap: 0 };
  const starts = new Int32Array(columns.length + 1);
  let nonZeros = 0;
  columns.forEach((column, index) => {
    starts[index] = nonZeros;
    nonZeros += column.rows.length;
  });
  starts[columns.length] = nonZeros;
  const indices = new Int32Array(nonZeros);
  const values = new Float64Array(nonZeros);
  columns.forEach((column, index) => {
    indices.set(column.rows, starts[index]!);
    values.set(column.coefficients, starts[index]!);
  });
  const infinity = (value: number) => (value === Infinity ? highs.infinity : value === -Infinity ? -highs.infinity : value);
  const model = highs.createModel({
    numCols: columns.length,
    numRows: rowLower.length,
    sense: highs.constants.objectiveSense.maximize,
    colCost: Float64Array.from(columns, (column) => column.value),
    colLower: new Float64Array(columns.length),
    colUpper: new Float64Array(columns.length).fill(1),
    rowLower: Float64Array.from(rowLower, infinity),
    rowUpper: Float64Array.from(rowUpper, infinity),
    matrix: { format: "csc", numRows: rowLower.length, numCols: columns.length, starts, indices, values },
    integrality: new Int32Array(columns.length).fill(highs.constants.variableType.integer),
  });
  try {
    model.options.set({ output_flag: false, mip_rel_gap: options.gap ?? 0.01, ...(options.timeLimitSeconds ? { time_limit: options.timeLimitSeconds } : {}) });
    model.run();
    const status = statusName(highs, model.getModelStatus());
    const values = model.getSolution().colValue;
    // Placed in order of start so that each cadence's runs go in after the one before.
    const chosen = columns.filter((_, index) => values[index]! > 0.5).sort((a, b) => a.start - b.start);
    for (const column of chosen) schedule.place({ job: column.job, site: column.site, start: column.start });
    const bound = Number(model.info.get("mip_dual_bound"));
    const gap = Number(model.info.get("mip_gap"));
    return { schedule, status, bound: Number.isFinite(bound) ? bound : schedule.value(), gap: Number.isFinite(gap) ? gap : 0 };
  } finally {
    model.dispose();
  }
}

function statusName(highs: Highs, code: number): string {
  const entries = Object.entries(highs.constants.modelStatus) as Array<[string, number]>;
  return entries.find(([, value]) => value === code)?.[0] ?? String(code);
}
