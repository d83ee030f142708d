/**
 * The product's planning step after one change (issue 60, points 3 and 7), beside a plan from scratch.
 *
 *   node --import tsx bench/network-plan-product.ts [--observations 2000] [--observatories 10] [--hours 72] [--changes 5] [--write 1]
 *
 * The network of bench/network-plan.ts (seed 2026). What `makeNetworkPlan` (features/network/make-plan.ts) does
 * between its reads and its write, on this process's `KeptBetweenPlans` (features/network/warm-start.ts): the
 * documents of one reading made the same objects as the reading before where they read the same, one sky model per
 * location, the plan in force (its slots and unscheduled, as stored: JSON) turned into the seed, and `planNetwork`
 * with that seed and the kept cache. Each change comes a minute after the plan in force (a new observation of
 * priority 10), and the plan it makes is the plan in force for the next change, as in a running worker. The
 * documents are parsed afresh for each reading, as the database gives them. Not measured: the database's reads and
 * the write (the same before and after this change).
 *
 * Reported, wall-clock and CPU time of this process: the first plan (from scratch, with nothing kept), each plan after a
 * change (the first, the median and the slowest; the first's and the others' CPU split between the main thread and the
 * rest), and from scratch on the input of the first change (fresh documents and sky models,
 * no cache, no seed: what the product did before); the objectives of the plan after the first change and of that
 * plan from scratch; the values the cache computed rather than kept.
 */
import { readdirSync, readFileSync } from "node:fs";
import { seededNetwork, type SeededNetwork, type SeededObservation } from "../packages/scheduler/src/network/seeded-network";
import { planNetwork } from "../packages/scheduler/src/network/plan";
import { skyModel } from "../packages/scheduler/src/sky-model";
import type { NetworkPlan } from "../packages/scheduler/src/network/inputs";
import { KeptBetweenPlans, seedFromPlanInForce } from "../packages/domain/src/features/network/warm-start";
import { loadAverage, machineDescription, numberOption, writeResult } from "./lib.mjs";
import { timed } from "./timed";

const observations = numberOption("observations", 2000);
const observatories = numberOption("observatories", 10);
const hours = numberOption("hours", 72);
const changeCount = numberOption("changes", 5);
const write = numberOption("write", 0) === 1;
const MINUTE = 60_000;

/**
 * CPU milliseconds of this process's main thread and of its other threads (V8's optimizing compiler and garbage
 * collector helpers, mostly), from /proc: a plan's CPU also counts what those threads do meanwhile.
 */
function threadCpuMs() {
  const ticksMs = 10;
  let main = 0;
  let others = 0;
  for (const thread of readdirSync("/proc/self/task")) {
    const stat = readFileSync(`/proc/self/task/${thread}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ms = (Number(fields[11]) + Number(fields[12])) * ticksMs;
    if (thread === String(process.pid)) main += ms;
    else others += ms;
  }
  return { main, others };
}

const network = seededNetwork({ seed: 2026, observatories, observations, horizonHours: hours });

/** The network at `now` with `added` in front, its documents and sky models read afresh (as from the database). */
function readAt(now: Date, added: SeededObservation[]): SeededNetwork {
  return {
    ...network,
    now,
    observatories: network.observatories.map((observatory) => ({
      ...observatory,
      model: observatory.model && skyModel({ location: structuredClone(observatory.model.location) }),
    })),
    observations: [...added, ...network.observations].map((observation) => ({ ...observation, doc: JSON.parse(JSON.stringify(observation.doc)) })),
  };
}

/** The reading as `loadNetworkInputs` makes it with what the process kept: the same objects for what reads the same. */
function keptReading(kept: KeptBetweenPlans, read: SeededNetwork): SeededNetwork {
  kept.beginReading();
  return {
    ...read,
    observatories: read.observatories.map((observatory) => ({ ...observatory, model: observatory.model && kept.model(observatory.model.location) })),
    observations: read.observations.map((observation) => ({ ...observation, doc: kept.doc(observation.id, observation.doc) })),
  };
}

/** The plan as `network_plans` stores it: the runs and the unscheduled by id, as JSON. */
const stored = (plan: NetworkPlan<SeededObservation>) =>
  JSON.parse(
    JSON.stringify({
      slots: plan.blocks.map((block) => ({ ...block, observation: undefined, observationId: block.observation.id })),
      unscheduled: plan.unscheduled.map((item) => ({ observationId: item.observation.id, reasons: [] })),
    }),
  );

/**
 * A new observation of priority 10, its fields each written once, in the order of the others (as the product's reading
 * writes every observation): a spread that overwrote `id` and `priority` changed V8's view of every observation's
 * fields, and the code already optimized for them was thrown away at the first change alone.
 */
const addedBy = (index: number): SeededObservation => {
  const template = network.observations[index * 7]!;
  const { createdAt, candidateObservatoryIds, filters } = template;
  const doc = JSON.parse(JSON.stringify(template.doc).replace(/"priority":\d+/, '"priority":10'));
  return { id: `obn_added_${index}`, createdAt, priority: 10, candidateObservatoryIds, filters, doc };
};

const kept = new KeptBetweenPlans(network.now.getTime());
const firstRead = readAt(network.now, []);
const first = timed(() => planNetwork(keptReading(kept, firstRead), { cache: kept.cache }));
const computedFirst = kept.cache.computed;
let inForce = stored(first.value);
const changes = [];
let computed = 0;
for (let index = 0; index < changeCount; index += 1) {
  const read = readAt(
    new Date(network.now.getTime() + (index + 1) * MINUTE),
    Array.from({ length: index + 1 }, (_, added) => addedBy(added)),
  );
  const before = kept.cache.computed;
  const threadsBefore = threadCpuMs();
  const change = timed(() => {
    const input = keptReading(kept, read);
    return { input, plan: planNetwork(input, { previous: seedFromPlanInForce({ stored: inForce, observations: input.observations }), cache: kept.cache }) };
  });
  if (index === 0) computed = kept.cache.computed - before;
  const threadsAfter = threadCpuMs();
  changes.push({ ...change, mainMs: threadsAfter.main - threadsBefore.main, othersMs: threadsAfter.others - threadsBefore.others });
  inForce = stored(change.value.plan);
}
const firstChange = changes[0]!;
const scratch = timed(() => planNetwork(readAt(firstChange.value.input.now, [addedBy(0)])));

const middle = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const median = { wallMs: middle(changes.map((run) => run.wallMs)), cpuMs: middle(changes.map((run) => run.cpuMs)) };
const slowest = changes.reduce((worst, run) => (run.cpuMs > worst.cpuMs ? run : worst));
const threads = (run: { mainMs: number; othersMs: number }) => `${run.mainMs.toFixed(0)} ms, ${run.othersMs.toFixed(0)} ms`;
const afterFirst = { mainMs: middle(changes.slice(1).map((run) => run.mainMs)), othersMs: middle(changes.slice(1).map((run) => run.othersMs)) };
const cell = (run: { wallMs: number; cpuMs: number }) => `${run.wallMs.toFixed(0)} ms, ${run.cpuMs.toFixed(0)} ms`;
const machine = machineDescription();
const text = `# Network plan, the product's step after a change (bench/network-plan-product.ts)

${new Date().toISOString()} · ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node} · load ${loadAverage()}

${observations} observations over ${observatories} observatories, ${hours} h; ${changeCount} changes, a minute apart.

| measure | value | goal |
|---|---|---|
| first plan (from scratch, nothing kept): wall, CPU | ${cell(first)} | < 5 s |
| plan after one change (the plan in force as seed, the process's cache): wall, CPU | ${cell(firstChange)} | < 1 s |
| the same, median of ${changeCount} changes | ${cell(median)} | < 1 s |
| the same, the slowest of ${changeCount} changes (by CPU) | ${cell(slowest)} | < 1 s |
| CPU of the first change, main thread; other threads (V8's compiler and GC helpers), 10 ms ticks | ${threads(firstChange)} | |
| the same, median of the changes after it | ${threads(afterFirst)} | |
| from scratch on the first change's input (what the product did before): wall, CPU | ${cell(scratch)} | |
| objective after the first change; from scratch on the same input | ${firstChange.value.plan.objective.toFixed(0)}; ${scratch.value.objective.toFixed(0)} | |
| values the cache computed for the first change (rather than kept); for the first plan | ${computed}; ${computedFirst} | |
`;
console.log(text);
if (write) console.log(`written to ${await writeResult("network-plan-product.md", text)}`);
