import type { Highs } from "highs";
import { ceilToMinute, windowOf } from "../queue";
import { PLAN_STEP_MS, type NetworkBlock } from "./inputs";
import { skyHolds, type Instance } from "./instance";
import { pointAtOrAfter, Schedule, type Assignment } from "./schedule";

const MINUTE_MS = 60_000;

/** What the MILP solver answered: the schedule it found, its status, and the bound on the optimum it proved. */
export interface ExactSolution {
  /** Its runs; a run that starts between two points is placed at the first whole minute after the earlier one. */
  schedule: Schedule;
  /** Σ priority × estimated seconds over its runs. */
  objective: number;
  status: string;
  /** An upper bound on the model's optimum (the solver's dual bound): the best any plan of this model can reach; Infinity when it stopped with none. */
  bound: number;
  /** The gap the solver proved between its plan and `bound`. */
  gap: number;
  /** How many of its runs start between two points (a relaxed start: see `timeIndexedModel`). */
  between: number;
}

/** One variable x of the model: a job at one of its sites, from one of the observatory's points or from somewhere between two of them. */
interface Column {
  job: number;
  site: number;
  /** A start on a point: that point. A start between points: the earlier point (the start lies after it, before `latest`). */
  start: number;
  between: boolean;
  /** The latest the run may start (its start on a point; just before the later point between two). */
  latest: number;
  value: number;
  rows: number[];
  coefficients: number[];
}

/** The model as HiGHS takes it: columns with their entries, and each row's bounds. */
export interface TimeIndexedModel {
  columns: Column[];
  rowLower: number[];
  rowUpper: number[];
  /** Per job, per site: the column of each start on a point, and of each stretch between points (by the later point's index). */
  atPoint: Array<Array<Map<number, number>>>;
  betweenPoints: Array<Array<Map<number, number>>>;
  /** Per observatory, the points that runs cover: its points, then boundaries on past the horizon as far as a run reaches. */
  grid: number[][];
}

/**
 * The HiGHS WebAssembly runtime, loaded once per process (it compiles about 2 MB of WebAssembly); `fresh`, a runtime of
 * its own (a runtime's memory grows to 2 GB at most and is not given back: a benchmark solving many large models takes one per model).
 */
let runtime: Promise<Highs> | undefined;
export function loadSolver(options: { fresh?: boolean } = {}): Promise<Highs> {
  if (options.fresh) return import("highs").then((module) => module.default());
  runtime ??= import("highs").then((module) => module.default());
  return runtime;
}

/**
 * The time-indexed model of the plan (docs/decisions, "the network plan"): a binary x per job,
 * site and start; each job at most once; at each point of an observatory at most one run covering
 * it; each allocation's runs within what it has left; each cadence's run k only after run k − 1,
 * an interval after its end. Maximizes Σ priority × estimated seconds.
 *
 * The plan may also start a run between two points (right after the run before it, or where
 * dispatch run forward started it), which a model of starts on points alone leaves out: its optimum
 * could then lie below the plan and its bound would bound nothing. So, unless `pointsOnly`, each
 * stretch between two points of an observatory has a column per job and site as well, a relaxation
 * of every start in it: it covers only the points every such start covers, needs only what every
 * such start needs (the sky at those points, the window and the allocation's period reachable
 * from inside the stretch), and a cadence takes its start as late and its end as early as the
 * stretch allows. Every plan is then a solution of the model, and its bound bounds every plan.
 */
export function timeIndexedModel(instance: Instance, options: { pointsOnly?: boolean } = {}): TimeIndexedModel {
  const columns: Column[] = [];
  const rowLower: number[] = [];
  const rowUpper: number[] = [];
  const newRow = (lower: number, upper: number): number => {
    rowUpper.push(upper);
    return rowLower.push(lower) - 1;
  };
  const longest = Math.max(0, ...instance.jobs.flatMap((job) => job.sites.map((site) => site.durationMs)));
  const grid = instance.points.map((points) => {
    const extended = [...points];
    if (points.length === 0) return extended;
    for (let at = Math.floor(points.at(-1)! / PLAN_STEP_MS) * PLAN_STEP_MS + PLAN_STEP_MS; at <= instance.horizonEnd + longest; at += PLAN_STEP_MS)
      extended.push(at);
    return extended;
  });

  const atPoint = instance.jobs.map((job) => job.sites.map(() => new Map<number, number>()));
  const betweenPoints = instance.jobs.map((job) => job.sites.map(() => new Map<number, number>()));
  const jobColumns: number[][] = instance.jobs.map(() => []);
  const addColumn = (column: Omit<Column, "rows" | "coefficients">) => {
    jobColumns[column.job]!.push(columns.length);
    columns.push({ ...column, rows: [], coefficients: [] });
    return columns.length - 1;
  };
  for (const job of instance.jobs) {
    const window = windowOf(job.observation.doc);
    job.sites.forEach((site, siteIndex) => {
      for (const start of site.starts) {
        const column = addColumn({ job: job.index, site: siteIndex, start, between: false, latest: start, value: site.value });
        atPoint[job.index]![siteIndex]!.set(pointAtOrAfter(grid[site.observatory]!, start), column);
      }
      if (options.pointsOnly || site.durationMs <= 0) return;
      const here = grid[site.observatory]!;
      const observatory = instance.observatories[site.observatory]!;
      const budget = site.budget >= 0 ? instance.budgets[site.budget]! : null;
      const held = new Map<number, boolean>();
      const holds = (index: number) => {
        let known = held.get(index);
        if (known === undefined) held.set(index, (known = skyHolds(job.observation.doc, observatory.model, here[index]!)));
        return known;
      };
      for (let index = 1; index < here.length && here[index - 1]! < instance.horizonEnd; index += 1) {
        const after = here[index - 1]!;
        const before = Math.min(here[index]!, instance.horizonEnd);
        if (!(window.start < before && after < window.end && after + site.durationMs < window.finishBy)) continue;
        if (budget && !(budget.from < before && after < budget.until)) continue;
        const covered = pointAtOrAfter(here, after + site.durationMs + 1);
        let sky = true;
        for (let point = index; sky && point < covered; point += 1) sky = holds(point);
        if (!sky) continue;
        const column = addColumn({ job: job.index, site: siteIndex, start: after, between: true, latest: before, value: site.value });
        betweenPoints[job.index]![siteIndex]!.set(index, column);
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
  // At each point, at most one run covering it: a run from a point covers the points in [start, end); one from
  // between two points covers those that any start there covers, from the later point to the earlier one's end.
  const covering = grid.map((points) => points.map((): number[] => []));
  for (let column = 0; column < columns.length; column += 1) {
    const { job, site: siteIndex, start, between } = columns[column]!;
    const site = instance.jobs[job]!.sites[siteIndex]!;
    const points = grid[site.observatory]!;
    const from = pointAtOrAfter(points, between ? start + 1 : start);
    const to = pointAtOrAfter(points, between ? start + site.durationMs + 1 : start + site.durationMs);
    for (let point = from; point < to; point += 1) covering[site.observatory]![point]!.push(column);
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
  // S_k − E_{k−1} − (M + I)·y_k ≥ −M, in minutes from the plan's start, where M exceeds any end (runs may end past the
  // horizon). A start between points counts as its latest, an end as its earliest: what every start there allows.
  const bigM = (instance.horizonEnd + longest - instance.start) / MINUTE_MS + 1;
  const minutes = (ms: number) => (ms - instance.start) / MINUTE_MS;
  for (const job of instance.jobs) {
    if (job.previous < 0) continue;
    const order = newRow(-Infinity, 0);
    const gapRow = newRow(-bigM, Infinity);
    const intervalMinutes = job.intervalMs / MINUTE_MS;
    for (const column of jobColumns[job.index]!) {
      entry(column, order, 1);
      entry(column, gapRow, minutes(columns[column]!.latest) - (bigM + intervalMinutes));
    }
    for (const column of jobColumns[job.previous]!) {
      const site = instance.jobs[job.previous]!.sites[columns[column]!.site]!;
      entry(column, order, -1);
      entry(column, gapRow, -minutes(columns[column]!.start + site.durationMs));
    }
  }
  return { columns, rowLower, rowUpper, atPoint, betweenPoints, grid };
}

/** Finds a plan's block in the instance: its job (observation and run) and the index of its observatory among the job's sites. */
export function blockLocator(instance: Instance) {
  const jobOf = new Map(instance.jobs.map((job) => [`${job.observation.id} ${job.run}`, job]));
  return (block: NetworkBlock) => {
    const name = `${block.observation.id} run ${block.run} at ${block.observatoryId} ${block.start.toISOString()}`;
    const job = jobOf.get(`${block.observation.id} ${block.run}`);
    const siteIndex = job ? job.sites.findIndex((site) => instance.observatories[site.observatory]!.id === block.observatoryId) : -1;
    return { name, job: siteIndex < 0 ? undefined : job, siteIndex };
  };
}

/**
 * A plan's runs as a solution of the model: the column of each run (or why it has none), the
 * rows it breaks, and its objective there. A plan the model cannot hold means the model is not
 * the plan's, and its bound bounds nothing.
 */
export function planInModel(instance: Instance, model: TimeIndexedModel, blocks: ReadonlyArray<NetworkBlock>) {
  const locate = blockLocator(instance);
  const chosen: number[] = [];
  const outside: string[] = [];
  for (const block of blocks) {
    const { name, job, siteIndex } = locate(block);
    if (!job) {
      outside.push(`${name}: no such job or site`);
      continue;
    }
    const site = job.sites[siteIndex]!;
    const start = block.start.getTime();
    const points = model.grid[site.observatory]!;
    const index = pointAtOrAfter(points, start);
    const onPoint = points[index] === start;
    const column = onPoint ? model.atPoint[job.index]![siteIndex]!.get(index) : model.betweenPoints[job.index]![siteIndex]!.get(index);
    if (column === undefined) outside.push(`${name}: not a start of the model ${onPoint ? "on" : "between"} points`);
    else if (block.end.getTime() - start !== site.durationMs) outside.push(`${name}: not its estimate there`);
    else chosen.push(column);
  }
  const activity = new Float64Array(model.rowLower.length);
  for (const column of chosen) model.columns[column]!.rows.forEach((row, index) => (activity[row]! += model.columns[column]!.coefficients[index]!));
  const broken = [...activity.keys()].filter((row) => activity[row]! > model.rowUpper[row]! + 1e-6 || activity[row]! < model.rowLower[row]! - 1e-6);
  const objective = chosen.reduce((total, column) => total + model.columns[column]!.value, 0);
  return {
    onPoints: chosen.filter((column) => !model.columns[column]!.between).length,
    betweenPoints: chosen.filter((column) => model.columns[column]!.between).length,
    outside,
    brokenRows: broken.length,
    objective,
  };
}

/** Solves the time-indexed model (`timeIndexedModel`) with HiGHS to `gap`. */
export function solveExactly(
  instance: Instance,
  options: { highs: Highs; gap?: number; timeLimitSeconds?: number; pointsOnly?: boolean; model?: TimeIndexedModel },
): ExactSolution {
  const { highs } = options;
  const { columns, rowLower, rowUpper } = options.model ?? timeIndexedModel(instance, { pointsOnly: options.pointsOnly });
  const schedule = new Schedule(instance);
  if (columns.length === 0) return { schedule, objective: 0, status: "Optimal", bound: 0, gap: 0, between: 0 };
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
    const solution = model.getSolution().colValue;
    // Placed in order of start so that each cadence's runs go in after the one before.
    const chosen = columns.filter((_, index) => solution[index]! > 0.5).sort((a, b) => a.start - b.start);
    for (const column of chosen) schedule.place(placed(column));
    const objective = chosen.reduce((total, column) => total + column.value, 0);
    const bound = Number(model.info.get("mip_dual_bound"));
    const gap = Number(model.info.get("mip_gap"));
    const between = chosen.filter((column) => column.between).length;
    return {
      schedule,
      objective,
      status,
      bound: Number.isFinite(bound) ? bound : status === "optimal" ? objective : Infinity,
      gap: Number.isFinite(gap) ? gap : 0,
      between,
    };
  } finally {
    model.dispose();
  }
}

const placed = (column: Column): Assignment => ({
  job: column.job,
  site: column.site,
  start: column.between ? Math.min(ceilToMinute(column.start + 1), column.latest - 1) : column.start,
});

export function statusName(highs: Highs, code: number): string {
  const entries = Object.entries(highs.constants.modelStatus) as Array<[string, number]>;
  return entries.find(([, value]) => value === code)?.[0] ?? String(code);
}
