import type { Highs } from "highs";
import type { Instance } from "./instance";
import { statusName, type TimeIndexedModel } from "./milp";
import { longestPath, timeGraphs, type TimeGraphs } from "./time-graph";

/** How far towards the best multipliers the pricing point lies from the master's duals. */
const CENTER_WEIGHT = 0.5;

/**
 * An upper bound on the optimum of the plan's model that keeps runs whole (ADR 0048): the rows that
 * couple the observatories (each job at most once over its sites, each allocation within what it has
 * left) are priced out with multipliers λ ≥ 0 and μ ≥ 0; each observatory's best use of its time is
 * then a longest path over its time graph (`time-graph.ts`), and for ANY multipliers
 *
 *   L(λ, μ) = Σ_o longest path_o(value − λ_j − μ_b × minutes) + Σ_j λ_j + Σ_b μ_b × minutes left_b
 *
 * is at least every plan's objective (weak duality: a plan is one path per observatory, and its
 * objective is at most L because it takes each job at most once and each allocation within its
 * minutes). The multipliers come from a restricted master LP over the paths found so far (column
 * generation, Dantzig–Wolfe); the bound is the lowest L seen, computed from the paths, never from the
 * solver's objective, so no tolerance of the solver can make it too low. Cadences are left out.
 */
export interface LagrangianBound {
  bound: number;
  /** The restricted master's optimum at the end: a plan of fractions of paths, below the bound until they meet. */
  masterObjective: number;
  status: string;
  iterations: number;
  paths: number;
  arcs: number;
  stepMs: number;
  /** The master's minutes per priority (index 1 to 10) and per observatory: where its fractional plan puts the time. */
  minutesByPriority: number[];
  minutesByObservatory: number[];
}

/** The master's rows: one per job, one per allocation, one per observatory (its paths' fractions sum to at most 1). */
function masterRows(instance: Instance) {
  const jobs = instance.jobs.length;
  const budgets = instance.budgets.length;
  const upper = [...instance.jobs.map(() => 1), ...instance.budgets.map((budget) => budget.leftMs / 60_000), ...instance.observatories.map(() => 1)];
  return { upper, budgetRow: (budget: number) => jobs + budget, observatoryRow: (observatory: number) => jobs + budgets + observatory };
}

/** A path as a column of the master: its value, and its entries (runs of each job, minutes of each allocation, its observatory). */
function pathColumn(graphs: TimeGraphs, rows: ReturnType<typeof masterRows>, observatory: number, arcs: ReadonlyArray<number>) {
  const graph = graphs.observatories[observatory]!;
  const entries = new Map<number, number>([[rows.observatoryRow(observatory), 1]]);
  let cost = 0;
  for (const arc of arcs) {
    cost += graph.value[arc]!;
    entries.set(graph.job[arc]!, (entries.get(graph.job[arc]!) ?? 0) + 1);
    const budget = graph.budget[arc]!;
    if (budget >= 0) entries.set(rows.budgetRow(budget), (entries.get(rows.budgetRow(budget)) ?? 0) + graph.minutes[arc]!);
  }
  return { cost, indices: Int32Array.from(entries.keys()), values: Float64Array.from(entries.values()) };
}

/** The paths priced at multipliers (per master row; the observatories' rows are not read): L(λ, μ), and each observatory's path. */
function priceAll(graphs: TimeGraphs, rows: ReturnType<typeof masterRows>, multipliers: Float64Array) {
  let value = rows.upper.reduce((total, upper, row) => (row < rows.observatoryRow(0) ? total + multipliers[row]! * upper : total), 0);
  const paths = graphs.observatories.map((graph) => {
    const weight = new Float64Array(graph.job.length);
    for (let arc = 0; arc < weight.length; arc += 1) {
      const budget = graph.budget[arc]!;
      weight[arc] = graph.value[arc]! - multipliers[graph.job[arc]!]! - (budget >= 0 ? multipliers[rows.budgetRow(budget)]! * graph.minutes[arc]! : 0);
    }
    const path = longestPath(graph, weight);
    value += path.value;
    return path.arcs;
  });
  return { value, paths };
}

/**
 * The bound by column generation: the master starts with the paths priced at `start`
 * (the bucket LP's duals are good multipliers: `BucketBound.multipliers`; zero without); each iteration prices at a
 * point between the best multipliers so far and the master's duals (Wentges' smoothing: the master's duals alone swing
 * from one extreme to another and the bound stalls), adds each observatory's path that is worth more at the master's
 * duals than the master pays for it, and solves the master again; until the master's optimum meets the bound within
 * `gap` (relative), no path adds to the master at its own duals, `maxIterations` or `timeLimitSeconds`.
 */
export function lagrangianBound(
  instance: Instance,
  options: {
    highs: Highs;
    model: TimeIndexedModel;
    /** Multipliers to start from (the bucket LP's duals are good ones: `BucketBound.multipliers`); zero without. */
    start?: { jobs: Float64Array; budgets: Float64Array };
    maxIterations?: number;
    timeLimitSeconds?: number;
    gap?: number;
  },
): LagrangianBound {
  const { highs } = options;
  const graphs = timeGraphs(instance, options.model);
  const rows = masterRows(instance);
  const observatories = graphs.observatories.length;
  const arcs = graphs.observatories.reduce((total, graph) => total + graph.job.length, 0);
  const paths: Array<{ observatory: number; arcs: number[]; cost: number }> = [];
  const lp = highs.createModel({
    numCols: 0,
    numRows: rows.upper.length,
    sense: highs.constants.objectiveSense.maximize,
    colCost: new Float64Array(0),
    colLower: new Float64Array(0),
    colUpper: new Float64Array(0),
    rowLower: new Float64Array(rows.upper.length).fill(-highs.infinity),
    rowUpper: Float64Array.from(rows.upper),
    matrix: { format: "csc", numRows: rows.upper.length, numCols: 0, starts: new Int32Array(1), indices: new Int32Array(0), values: new Float64Array(0) },
  });
  const addPath = (observatory: number, path: number[]) => {
    const column = pathColumn(graphs, rows, observatory, path);
    lp.addCol(column.cost, 0, highs.infinity, { indices: column.indices, values: column.values });
    paths.push({ observatory, arcs: path, cost: column.cost });
  };
  try {
    lp.options.set({ output_flag: false });
    const started = performance.now();
    const gap = options.gap ?? 1e-4;
    let bound = Infinity;
    let best: Float64Array = new Float64Array(rows.upper.length);
    const consider = (multipliers: Float64Array) => {
      const priced = priceAll(graphs, rows, multipliers);
      if (priced.value < bound) [bound, best] = [priced.value, multipliers];
      return priced;
    };
    const start = new Float64Array(rows.upper.length);
    options.start?.jobs.forEach((multiplier, job) => (start[job] = Math.max(0, multiplier)));
    options.start?.budgets.forEach((multiplier, budget) => (start[rows.budgetRow(budget)] = Math.max(0, multiplier)));
    consider(start).paths.forEach((path, observatory) => path.length > 0 && addPath(observatory, path));
    const empty = { duals: new Float64Array(rows.upper.length), masterObjective: 0, status: "empty" };
    let { duals, masterObjective, status } = paths.length > 0 ? solveMaster(highs, lp, rows.upper, paths) : empty;
    let smoothing = CENTER_WEIGHT;
    let iterations = 0;
    while (iterations < (options.maxIterations ?? 1000) && bound - masterObjective > gap * bound) {
      if (options.timeLimitSeconds && performance.now() - started > options.timeLimitSeconds * 1000) break;
      iterations += 1;
      const at = Float64Array.from(duals, (dual, row) => smoothing * best[row]! + (1 - smoothing) * dual);
      const priced = consider(at);
      // A path worth more at the master's duals than the master pays for its observatory enters it.
      let added = 0;
      priced.paths.forEach((path, observatory) => {
        const graph = graphs.observatories[observatory]!;
        let reduced = -duals[rows.observatoryRow(observatory)]!;
        for (const arc of path) {
          const budget = graph.budget[arc]!;
          reduced += graph.value[arc]! - duals[graph.job[arc]!]! - (budget >= 0 ? duals[rows.budgetRow(budget)]! * graph.minutes[arc]! : 0);
        }
        if (reduced > 1e-9 * Math.max(1, masterObjective)) {
          addPath(observatory, path);
          added += 1;
        }
      });
      if (added === 0) {
        // Priced between the two, no path helps the master (a mispricing): price at its duals next; there, none means it is optimal.
        if (smoothing === 0) break;
        smoothing = 0;
        continue;
      }
      smoothing = CENTER_WEIGHT;
      ({ duals, masterObjective, status } = solveMaster(highs, lp, rows.upper, paths));
    }
    const { colValue } = paths.length > 0 ? lp.getSolution() : { colValue: new Float64Array(0) };
    const minutesByPriority: number[] = [];
    const minutesByObservatory = Array.from({ length: observatories }, () => 0);
    paths.forEach((path, column) => {
      const graph = graphs.observatories[path.observatory]!;
      for (const arc of path.arcs) {
        const minutes = colValue[column]! * graph.minutes[arc]!;
        const priority = instance.jobs[graph.job[arc]!]!.observation.priority;
        minutesByPriority[priority] = (minutesByPriority[priority] ?? 0) + minutes;
        minutesByObservatory[path.observatory]! += minutes;
      }
    });
    return { bound, masterObjective, status, iterations, paths: paths.length, arcs, stepMs: graphs.stepMs, minutesByPriority, minutesByObservatory };
  } finally {
    lp.dispose();
  }
}

/**
 * Solves the master and reads its row duals as multipliers ≥ 0 (HiGHS's sign for a maximization is
 * taken as the one whose dual objective meets the primal's; clipped at zero either way, so any
 * value is a valid multiplier).
 */
function solveMaster(highs: Highs, lp: ReturnType<Highs["createModel"]>, upper: number[], paths: ReadonlyArray<{ cost: number }>) {
  lp.run();
  const status = statusName(highs, lp.getModelStatus());
  const { colValue, rowDual } = lp.getSolution();
  const masterObjective = colValue.reduce((total, value, column) => total + value * paths[column]!.cost, 0);
  const dualObjective = (sign: number) => upper.reduce((total, bound, row) => total + Math.max(0, sign * rowDual[row]!) * bound, 0);
  const sign = Math.abs(dualObjective(1) - masterObjective) <= Math.abs(dualObjective(-1) - masterObjective) ? 1 : -1;
  return { duals: Float64Array.from(rowDual, (dual) => Math.max(0, sign * dual)), masterObjective, status };
}
