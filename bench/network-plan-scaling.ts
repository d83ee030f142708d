/**
 * The plan against the optimum on networks HiGHS can still solve, size by size (issue 60 point 7, ADR 0053): at full size
 * (2,000 observations, 72 h) it finds no useful bound in 600 s, so the ratio there rests on Lagrangian bounds (ADR 0048);
 * these sizes show the ratio where the optimum is known, for the five-minute model and for every start the plan may take,
 * and how far each bound lies above its optimum.
 *
 *   node --import tsx bench/network-plan-scaling.ts [--sizes 200x24,400x24,300x48] [--observatories 10] [--gap 0.01]
 *     [--milp-seconds 600] [--write 1]
 */
import { buildInstance } from "../packages/scheduler/src/network/instance";
import { loadSolver, solveExactly, timeIndexedModel } from "../packages/scheduler/src/network/milp";
import { bucketBound } from "../packages/scheduler/src/network/bound";
import { lagrangianBound } from "../packages/scheduler/src/network/lagrangian-bound";
import { planNetwork } from "../packages/scheduler/src/network/plan";
import { seededNetwork } from "../packages/scheduler/src/network/seeded-network";
import { loadAverage, machineDescription, numberOption, writeResult } from "./lib.mjs";
import { timed } from "./timed";

const sizesIndex = process.argv.indexOf("--sizes");
const sizes = (sizesIndex >= 0 ? process.argv[sizesIndex + 1]! : "200x24,400x24,800x24,300x48,400x72").split(",").map((size) => {
  const [observations, hours] = size.split("x").map(Number);
  if (!Number.isInteger(observations) || !Number.isInteger(hours)) throw new Error(`--sizes: "${size}" is not OBSERVATIONSxHOURS`);
  return { observations: observations!, hours: hours! };
});
const observatories = numberOption("observatories", 10);
const gap = numberOption("gap", 0.01);
const milpSeconds = numberOption("milp-seconds", 600);
const write = numberOption("write", 0) === 1;
const machine = machineDescription();
const startedAt = new Date().toISOString();

const ratio = (value: number, of: number) => (Number.isFinite(of) && of > 0 ? (value / of).toFixed(4) : "–");
const solverCell = (solution: { status: string; objective: number; bound: number }, wallMs: number) => {
  const bound = Number.isFinite(solution.bound) ? solution.bound.toFixed(0) : "none";
  return `${solution.status}; ${solution.objective.toFixed(0)}; ${bound}; ${(wallMs / 1000).toFixed(1)} s`;
};
const header = [
  "network",
  "jobs; columns: five-minute model, every start",
  "plan",
  "five-minute MILP: status; objective; bound; wall",
  "plan / five-minute optimum (goal ≥ 0.95)",
  "five-minute Lagrangian bound; plan / it (a floor on plan / that optimum)",
  "every-start MILP: status; objective; bound; wall",
  "every-start Lagrangian bound",
  "plan / the lower of the two every-start ceilings (a floor on plan / best plan)",
];
/**
 * HiGHS's WebAssembly build aborts when its search outgrows its memory (2 GB at most: seen on the five-minute MILP of 700
 * observations × 72 h); the row then says so and its runtime, dead, is not used again.
 */
function solvedOrAborted(solve: () => { status: string; objective: number; bound: number }) {
  try {
    return solve();
  } catch (error) {
    if (!(error instanceof WebAssembly.RuntimeError)) throw error;
    return { status: `aborted (${error.message.split(".")[0]})`, objective: NaN, bound: NaN };
  }
}
const rows: string[] = [];
for (const { observations, hours } of sizes) {
  // A fresh HiGHS runtime per model: a runtime's WebAssembly memory (2 GB at most) is not given back, and one runtime
  // aborted on the largest network's second model.
  const fresh = () => loadSolver({ fresh: true });
  const network = seededNetwork({ seed: 2026, observatories, observations, horizonHours: hours });
  const plan = planNetwork(network).objective;
  const instance = buildInstance(network);
  // The five-minute model (ADR 0053): starts on points alone, every solution a plan; its optimum, and the Lagrangian bound over its paths.
  const points = timeIndexedModel(instance, { pointsOnly: true });
  const pointsHighs = await fresh();
  const pointsExact = timed(() => solvedOrAborted(() => solveExactly(instance, { highs: pointsHighs, gap, timeLimitSeconds: milpSeconds, model: points })));
  const boundHighs = await fresh();
  const pointsStart = bucketBound(instance, { highs: boundHighs, model: points }).multipliers;
  const pointsBound = lagrangianBound(instance, { highs: boundHighs, model: points, start: pointsStart }).bound;
  // Every start the plan may take (ADR 0044's model, relaxed between points): a ceiling on every plan, and the Lagrangian over its paths.
  const every = timeIndexedModel(instance);
  const everyHighs = await fresh();
  const everyExact = timed(() => solvedOrAborted(() => solveExactly(instance, { highs: everyHighs, gap, timeLimitSeconds: milpSeconds, model: every })));
  const everyBoundHighs = await fresh();
  const everyStart = bucketBound(instance, { highs: everyBoundHighs, model: every }).multipliers;
  const everyBound = lagrangianBound(instance, { highs: everyBoundHighs, model: every, start: everyStart }).bound;
  const ceiling = Math.min(...[everyExact.value.bound, everyBound].filter(Number.isFinite));
  const cells = [
    `${observations} × ${hours} h`,
    `${instance.jobs.length}; ${points.columns.length}; ${every.columns.length}`,
    plan.toFixed(0),
    solverCell(pointsExact.value, pointsExact.wallMs),
    ratio(plan, pointsExact.value.objective),
    `${pointsBound.toFixed(0)}; ${ratio(plan, pointsBound)}`,
    solverCell(everyExact.value, everyExact.wallMs),
    everyBound.toFixed(0),
    ratio(plan, ceiling),
  ];
  rows.push(`| ${cells.join(" | ")} |`);
  console.log(rows.at(-1));
}

const text = `# Network plan against the optimum, size by size (bench/network-plan-scaling.ts)

${startedAt} · ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node} · load ${loadAverage()}

Seed 2026, ${observatories} observatories at 4 sites; HiGHS at gap ${gap}, at most ${milpSeconds} s per MILP. The five-minute
model (ADR 0053: starts on five-minute points, the issue's model) and the model of every start the plan may take (ADR 0044:
runs between points relaxed, so its optimum may lie above every plan). Lagrangian bounds: ADR 0048, over each model's paths.

| ${header.join(" | ")} |
|${header.map(() => "---").join("|")}|
${rows.join("\n")}
`;
console.log(text);
if (write) console.log(`written to ${await writeResult("network-plan-scaling.md", text)}`);
