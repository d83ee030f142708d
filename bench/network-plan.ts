/**
 * The network plan's quality and speed (issue 60, point 7).
 *
 *   node --import tsx bench/network-plan.ts [--observations 2000] [--observatories 10] [--hours 72]
 *     [--milp-seconds 900] [--gap 0.01] [--lagrangian-seconds 600] [--reduced-observations 200] [--reduced-hours 24] [--reduced-seconds 600] [--write 1]
 *
 * A seeded network (packages/scheduler/src/network/seeded-network.ts, seed 2026): `--observatories`
 * observatories at four sites (La Palma, Cerro Tololo, Siding Spring, McDonald), `--observations`
 * pending observations (70 % with two to four candidates; priorities 1 to 10; 8 to 60 minutes;
 * minimum altitudes 25° to 45°, some airmass and Moon limits, some nautical; 8 % with a fixed
 * window, 5 % monitoring; one observatory in three reports filters and lacks Hα; three allocated
 * projects), planned over `--hours` from 2026-12-10T12:00Z.
 *
 * Reported: the plan's objective (Σ priority × estimated seconds) against the optimum of the
 * model solved by HiGHS to `--gap` (its incumbent, and the proven bound: the ratio to the bound is a
 * floor on the ratio to the true optimum, also when the solver stops at its time limit, because
 * the model holds every plan: each of the plan's runs is one of its columns and the plan breaks
 * none of its rows, which is checked and reported); the same on a reduced network (`--reduced-*`:
 * one night, 200 observations) that HiGHS can solve to the gap, with the model of starts on points
 * alone (ADR 0042's, a restriction of the plan's) as a ceiling; against dispatch run forward over
 * the network (the gain); the time to plan from scratch and after one change (a new observation of
 * priority 10, planned from the plan before with the kept cache; five such changes, the first and
 * the median), and the objective of that plan against one made from scratch; and the astronomical dark hours filled at each site. Wall-clock
 * and CPU time of this process. Without `--write 1` it only prints (a small run to check it works:
 * `--observations 150 --observatories 4 --hours 24 --milp-seconds 60 --reduced-observations 40`).
 *
 * Also an upper bound on the optimum of the plan's model that HiGHS solves at full size (ADR 0047): the bucket LP of
 * packages/scheduler/src/network/bound.ts (`--bucket-minutes`, default 5), with the plan held to it and the hours each
 * priority gets in the LP and in the plan (what the bound leaves out shows there); and that bound on the reduced network.
 * And one that keeps runs whole (ADR 0048): the Lagrangian bound of lagrangian-bound.ts, a longest path per
 * observatory priced by column generation, with the hours per priority and per site of its master beside the plan's.
 * `--milp-seconds 0` leaves the full-size MILP out (it finds nothing in 600 s; the bounds do not need it).
 * And the goal's yardstick (ADR 0053): the optimum of the five-minute model (starts on points alone), bounded by the
 * Lagrangian over its own paths; the plan, which may also start runs between points, against that bound.
 */
import { buildInstance, NetworkPlanCache } from "../packages/scheduler/src/network/instance";
import { runNetworkDispatchForward } from "../packages/scheduler/src/network/dispatch-forward";
import { loadSolver, planInModel, solveExactly, timeIndexedModel } from "../packages/scheduler/src/network/milp";
import { bucketBound, bucketModel, planInBuckets } from "../packages/scheduler/src/network/bound";
import { lagrangianBound } from "../packages/scheduler/src/network/lagrangian-bound";
import { planInGraphs, timeGraphs } from "../packages/scheduler/src/network/time-graph";
import { blocksOf, objectiveOf, planNetwork } from "../packages/scheduler/src/network/plan";
import { seededNetwork, SITES } from "../packages/scheduler/src/network/seeded-network";
import type { NetworkBlock } from "../packages/scheduler/src/network/inputs";
import { loadAverage, machineDescription, numberOption, writeResult } from "./lib.mjs";
import { timed } from "./timed";

const observations = numberOption("observations", 2000);
const observatories = numberOption("observatories", 10);
const hours = numberOption("hours", 72);
const milpSeconds = numberOption("milp-seconds", 900);
const gap = numberOption("gap", 0.01);
const write = numberOption("write", 0) === 1;
const reducedObservations = numberOption("reduced-observations", 200);
const reducedHours = numberOption("reduced-hours", 24);
const reducedSeconds = numberOption("reduced-seconds", 600);

const network = seededNetwork({ seed: 2026, observatories, observations, horizonHours: hours });
const cache = new NetworkPlanCache();
const scratch = timed(() => planNetwork(network, { cache }));
const plan = scratch.value;
const forward = timed(() => runNetworkDispatchForward(network));
const greedy = objectiveOf(forward.value);

// Five changes, each a new observation of priority 10 (a copy of another one each time), each planned from the plan from
// scratch with the kept cache: the first, and the median.
const changedBy = (index: number) => {
  const template = network.observations[index * 7]!;
  const added = { ...template, id: `obn_added_${index}`, priority: 10, doc: { ...template.doc, priority: 10 } };
  return { ...network, observations: [added, ...network.observations] };
};
const changes = Array.from({ length: 5 }, (_, index) => timed(() => planNetwork(changedBy(index), { previous: plan, cache })));
const change = changes[0]!;
const middle = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const changed = changedBy(0);
const changedFromScratch = planNetwork(changed);

const highs = await loadSolver();
const instance = buildInstance(network, cache);
const model = timeIndexedModel(instance);
const onPoints = model.columns.filter((column) => !column.between).length;
const planThere = planInModel(instance, model, plan.blocks);
const planOnPointsAlone = planInModel(instance, timeIndexedModel(instance, { pointsOnly: true }), plan.blocks);
const skipped = { value: { objective: NaN, bound: NaN, status: "skipped (--milp-seconds 0)", schedule: null, between: 0 }, wallMs: 0, cpuMs: 0 };
const exact = milpSeconds > 0 ? timed(() => solveExactly(instance, { highs, gap, timeLimitSeconds: milpSeconds, model })) : skipped;
const optimum = exact.value.objective;

// A reduced network HiGHS can solve to the gap: the plan against the model's optimum, and against the optimum of starts on points alone.
const reduced = seededNetwork({ seed: 2026, observatories, observations: reducedObservations, horizonHours: reducedHours });
const reducedPlan = planNetwork(reduced);
const reducedInstance = buildInstance(reduced);
const reducedThere = planInModel(reducedInstance, timeIndexedModel(reducedInstance), reducedPlan.blocks);
const reducedExact = timed(() => solveExactly(reducedInstance, { highs, gap, timeLimitSeconds: reducedSeconds }));
const reducedPoints = timed(() => solveExactly(reducedInstance, { highs, gap, timeLimitSeconds: reducedSeconds, pointsOnly: true }));

// An upper bound on the optimum of the plan's model at full size (ADR 0047): the bucket LP, with the plan held to it; and the
// same bound on the reduced network, to set beside that network's MILP optimum (how loose the bound is where both are known).
const bucketMinutes = numberOption("bucket-minutes", 5);
const bucket = timed(() => bucketBound(instance, { highs, model, bucketMinutes }));
const planInTheBuckets = planInBuckets(instance, bucketModel(instance, model, bucketMinutes), plan.blocks);
const reducedBucket = bucketBound(reducedInstance, { highs, model: timeIndexedModel(reducedInstance), bucketMinutes });
const { columns: lpColumns, rows: lpRows, status: lpStatus } = bucket.value;
const boundLpCell = `${lpColumns}, ${lpRows}; ${lpStatus}; ${bucket.wallMs.toFixed(0)} ms, ${bucket.cpuMs.toFixed(0)} ms`;
const planInBucketsCell = `${planInTheBuckets.outside.length}; ${planInTheBuckets.brokenRows}; ${planInTheBuckets.objective.toFixed(0)}`;
const reducedOverBound = [reducedPlan.objective, reducedPoints.value.objective, reducedExact.value.objective].map((value) => value / reducedBucket.bound);
const reducedBoundCell = `${reducedBucket.bound.toFixed(0)}; ${reducedOverBound.map((ratio) => ratio.toFixed(4)).join("; ")}`;

// The Lagrangian bound (ADR 0048), from the bucket LP's duals (`--lagrangian-seconds`, default 600); the plan held to its
// graphs; the same on the reduced network.
const lagrangianSeconds = numberOption("lagrangian-seconds", 600);
const lagrangian = timed(() => lagrangianBound(instance, { highs, model, start: bucket.value.multipliers, timeLimitSeconds: lagrangianSeconds }));
const planInTheGraphs = planInGraphs(instance, timeGraphs(instance, model), plan.blocks);
const reducedLagrangian = lagrangianBound(reducedInstance, {
  highs,
  model: timeIndexedModel(reducedInstance),
  start: reducedBucket.multipliers,
});
const { iterations, paths, arcs, stepMs, status: masterStatus } = lagrangian.value;
const lagrangianTime = `${lagrangian.wallMs.toFixed(0)} ms, ${lagrangian.cpuMs.toFixed(0)} ms`;
const lagrangianCell = `${arcs}, ${stepMs / 1000} s; ${iterations}, ${paths}; ${masterStatus}; ${lagrangianTime}`;
const reducedLagrangianCell = [reducedLagrangian.bound, reducedPlan.objective, reducedPoints.value.objective, reducedExact.value.objective]
  .map((value, index) => (index === 0 ? value.toFixed(0) : (value / reducedLagrangian.bound).toFixed(4)))
  .join("; ");
// The five-minute model (ADR 0053: starts on points alone, the model, every solution a plan): the Lagrangian bound over
// its paths, from its own bucket LP's duals. The plan may start runs between points, so it may lie above that model's optimum.
// A runtime of its own: one runtime's WebAssembly memory (2 GB at most) is not given back, and this comes after the others' models.
const fiveMinuteHighs = await loadSolver({ fresh: true });
const fiveMinuteModel = timeIndexedModel(instance, { pointsOnly: true });
const fiveMinute = timed(() =>
  lagrangianBound(instance, {
    highs: fiveMinuteHighs,
    model: fiveMinuteModel,
    start: bucketBound(instance, { highs: fiveMinuteHighs, model: fiveMinuteModel, bucketMinutes }).multipliers,
    timeLimitSeconds: lagrangianSeconds,
  }),
);
const reducedFiveMinuteModel = timeIndexedModel(reducedInstance, { pointsOnly: true });
const reducedFiveMinute = lagrangianBound(reducedInstance, {
  highs: fiveMinuteHighs,
  model: reducedFiveMinuteModel,
  start: bucketBound(reducedInstance, { highs: fiveMinuteHighs, model: reducedFiveMinuteModel, bucketMinutes }).multipliers,
});
const hoursByPriority = (minutes: (priority: number) => number) =>
  [10, 9, 8, 7, 6, 5, 4, 3, 2, 1].map((priority) => (minutes(priority) / 60).toFixed(1)).join(" / ");
const planMinutes = (priority: number) =>
  plan.blocks
    .filter((block) => block.observation.priority === priority)
    .reduce((total, block) => total + (block.end.getTime() - block.start.getTime()) / 60_000, 0);

/** Hours of astronomical darkness at each site's observatories over the horizon, and the hours of planned runs inside them. */
function darkHoursFilled(blocks: ReadonlyArray<NetworkBlock>) {
  const start = network.now.getTime();
  const end = start + hours * 3_600_000;
  return SITES.map((site) => {
    const here = network.observatories.filter((observatory) => observatory.model?.location === site.location);
    let dark = 0;
    let filled = 0;
    for (const observatory of here) {
      const intervals = observatory
        .model!.darkIntervals("astronomical", start, end)
        .map((interval) => ({ from: Math.max(start, interval.start), to: Math.min(end, interval.end) }));
      for (const interval of intervals) {
        dark += interval.to - interval.from;
        for (const block of blocks) {
          if (block.observatoryId !== observatory.id) continue;
          filled += Math.max(0, Math.min(interval.to, block.end.getTime()) - Math.max(interval.from, block.start.getTime()));
        }
      }
    }
    return { site: site.name, observatories: here.length, darkHours: dark / 3_600_000, planHours: filled / 3_600_000, greedyHours: 0 };
  }).filter((row) => row.observatories > 0);
}
const sites = darkHoursFilled(plan.blocks);
const masterHoursBySite = SITES.map((site) =>
  network.observatories.reduce(
    (total, observatory, index) => (observatory.model?.location === site.location ? total + lagrangian.value.minutesByObservatory[index]! / 60 : total),
    0,
  ),
);
const planHoursBySite = SITES.map((site) =>
  plan.blocks
    .filter((block) => network.observatories.find((observatory) => observatory.id === block.observatoryId)?.model?.location === site.location)
    .reduce((total, block) => total + (block.end.getTime() - block.start.getTime()) / 3_600_000, 0),
);
const siteHoursCell = SITES.map((site, index) => `${site.name} ${masterHoursBySite[index]!.toFixed(1)} / ${planHoursBySite[index]!.toFixed(1)}`).join("; ");
const greedySites = darkHoursFilled(forward.value);
sites.forEach((row, index) => (row.greedyHours = greedySites[index]!.planHours));

const machine = machineDescription();
const share = (part: number, whole: number) => `${part.toFixed(1)} (${((100 * part) / whole).toFixed(1)} %)`;
const siteRows = sites.map(
  (row) =>
    `| ${row.site} | ${row.observatories} | ${row.darkHours.toFixed(1)} | ${share(row.planHours, row.darkHours)} | ${share(row.greedyHours, row.darkHours)} |`,
);
const solverCell = (solution: Pick<typeof exact, "value" | "wallMs">) =>
  `${solution.value.status}, ${solution.value.objective.toFixed(0)}, ${solution.value.bound.toFixed(0)} (${(solution.wallMs / 1000).toFixed(1)} s)`;
const milpCell = solverCell(exact);
const gainCell = `${greedy.toFixed(0)}; ${((100 * (plan.objective - greedy)) / greedy).toFixed(2)} %`;
const inModelCell = (there: typeof planThere) => {
  const runs = `${there.onPoints} on points, ${there.betweenPoints} between, ${there.outside.length} outside`;
  return `${runs}; ${there.brokenRows} rows broken; ${there.objective.toFixed(0)}`;
};
const changeCell = [change, { wallMs: middle(changes.map((run) => run.wallMs)), cpuMs: middle(changes.map((run) => run.cpuMs)) }]
  .map((run) => `${run.wallMs.toFixed(0)} ms, ${run.cpuMs.toFixed(0)} ms`)
  .join("; ");
const reducedRatios = [reducedExact.value.objective, reducedExact.value.bound].map((value) => (reducedPlan.objective / value).toFixed(4)).join("; ");
const fixed = (value: number, digits = 0) => value.toFixed(digits);
const fiveMinuteTime = `${fixed(fiveMinute.wallMs)} ms, ${fixed(fiveMinute.cpuMs)} ms`;
const fiveMinuteCell = `${fixed(fiveMinute.value.bound)}; ${fixed(fiveMinute.value.masterObjective)}; ${fiveMinute.value.iterations}; ${fiveMinuteTime}`;
const reducedFiveMinuteCell = [reducedFiveMinute.bound, reducedPlan.objective, reducedPoints.value.objective]
  .map((value, index) => (index === 0 ? fixed(value) : fixed(value / reducedFiveMinute.bound, 4)))
  .join("; ");
const text = `# Network plan (bench/network-plan.ts)

${new Date().toISOString()} · ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node} · load ${loadAverage()}

${observations} observations (${instance.jobs.length} jobs with monitoring runs, ${onPoints} starts on points) over ${observatories} observatories
at ${sites.length} sites, ${hours} h.

| measure | value | goal |
|---|---|---|
| plan objective (Σ priority × s) | ${fixed(plan.objective)} | |
| the plan in the MILP's model: runs on points, between points, outside; rows broken; objective there | ${inModelCell(planThere)} | 0 outside, 0 broken |
| the plan in ADR 0042's model (starts on points alone) | ${inModelCell(planOnPointsAlone)} | |
| MILP columns: on points, between points (relaxed); rows | ${onPoints}, ${model.columns.length - onPoints}; ${model.rowLower.length} | |
| MILP (HiGHS, gap ${gap}, limit ${milpSeconds} s): status, objective, bound | ${milpCell} | |
| plan / MILP objective | ${fixed(plan.objective / optimum, 4)} | ≥ 0.95 |
| plan / MILP bound (floor on plan / optimum) | ${fixed(plan.objective / exact.value.bound, 4)} | ≥ 0.95 |
| dispatch run forward objective; plan's gain | ${gainCell} | ≥ 0 |
| plan from scratch: wall, CPU | ${fixed(scratch.wallMs)} ms, ${fixed(scratch.cpuMs)} ms | < 5 s |
| plan after one change (from the plan before): wall, CPU; median of 5 changes | ${changeCell} | < 1 s |
| plan after one change: objective; from scratch on the same input | ${fixed(change.value.objective)}; ${fixed(changedFromScratch.objective)} | |
| dispatch run forward alone: wall | ${fixed(forward.wallMs)} ms | |

Reduced network: ${reducedObservations} observations (${reducedInstance.jobs.length} jobs), ${observatories} observatories, ${reducedHours} h, same seed.

| measure | value | goal |
|---|---|---|
| plan objective | ${fixed(reducedPlan.objective)} | |
| the plan in the MILP's model | ${inModelCell(reducedThere)} | 0 outside, 0 broken |
| MILP (gap ${gap}, limit ${reducedSeconds} s): status, objective, bound; runs between points | ${solverCell(reducedExact)}; ${reducedExact.value.between} | |
| plan / MILP objective; plan / MILP bound (floor on plan / optimum) | ${reducedRatios} | ≥ 0.95 |
| MILP of starts on points alone: status, objective, bound | ${solverCell(reducedPoints)} | |
| plan / that objective (a ceiling on plan / optimum: that model is a restriction) | ${fixed(reducedPlan.objective / reducedPoints.value.objective, 4)} | |

| site | observatories | dark hours | filled by the plan | filled by dispatch run forward |
|---|---|---|---|---|
${siteRows.join("\n")}

The MILP's own plan: ${exact.value.schedule ? blocksOf(instance, exact.value.schedule).length : "no"} runs, ${exact.value.between} of them between points.

Upper bound on the optimum of the plan's model (ADR 0047): the bucket LP of \`bound.ts\`, ${bucketMinutes}-minute buckets.

| measure | value | goal |
|---|---|---|
| LP: columns, rows; status; wall, CPU (building and solving) | ${boundLpCell} | |
| the plan in the LP: runs or minutes outside; rows broken; objective there | ${planInBucketsCell} | 0, 0 |
| bound (the dual's objective); the LP's optimum as HiGHS reports it | ${fixed(bucket.value.bound)}; ${fixed(bucket.value.lpObjective)} | |
| plan / bound (floor on plan / optimum) | ${fixed(plan.objective / bucket.value.bound, 4)} | ≥ 0.95 |
| hours at priority 10 / 9 / … / 1: the LP | ${hoursByPriority((priority) => bucket.value.minutesByPriority[priority] ?? 0)} | |
| hours at priority 10 / 9 / … / 1: the plan | ${hoursByPriority(planMinutes)} | |
| reduced network: bound; plan / bound; optimum of starts on points (a floor on the optimum) / bound; MILP optimum / bound | ${reducedBoundCell} | |

A tighter upper bound that keeps runs whole (ADR 0048): the Lagrangian bound of \`lagrangian-bound.ts\`, from the bucket LP's duals.

| measure | value | goal |
|---|---|---|
| graphs: arcs, step; iterations, paths in the master; master's status; wall, CPU (building and solving) | ${lagrangianCell} | |
| the plan as paths of the graphs: runs outside | ${planInTheGraphs.outside.length} | 0 |
| bound (lowest L(λ, μ) seen); the master's optimum | ${fixed(lagrangian.value.bound)}; ${fixed(lagrangian.value.masterObjective)} | |
| plan / bound (floor on plan / optimum) | ${fixed(plan.objective / lagrangian.value.bound, 4)} | ≥ 0.95 |
| hours at priority 10 / 9 / … / 1: the master | ${hoursByPriority((priority) => lagrangian.value.minutesByPriority[priority] ?? 0)} | |
| hours per site: the master / the plan | ${siteHoursCell} | |
| reduced network: bound; plan / bound; optimum of starts on points / bound; MILP optimum / bound | ${reducedLagrangianCell} | |

The optimum of the five-minute model (ADR 0053: starts on five-minute points alone, the issue's model; every solution a plan),
bounded by the Lagrangian over its own paths (\`lagrangian-bound.ts\` on \`timeIndexedModel(instance, { pointsOnly: true })\`).

| measure | value | goal |
|---|---|---|
| bound; the master's optimum; iterations; wall, CPU (its bucket LP included) | ${fiveMinuteCell} | |
| plan / bound (a floor on plan / that model's optimum) | ${fixed(plan.objective / fiveMinute.value.bound, 4)} | ≥ 0.95 |
| reduced network: bound; plan / bound; that model's MILP optimum (starts on points alone, above) / bound | ${reducedFiveMinuteCell} | |
`;
console.log(text);
if (write) console.log(`written to ${await writeResult("network-plan.md", text)}`);
