/**
 * The network plan made again after a change, end to end (issue 60, point 3: "reflects it within 5 s"), at the
 * benchmark's size: 10 observatories at the four sites of bench/network-plan.ts and its 2,000 pending observations
 * (seed 2026, 70 % with 2 to 4 candidates, the moment of the run), in an embedded PostgreSQL, with the worker
 * (graphile-worker, every job and cron of the product) running in this process. Each change is a new observation
 * with candidates committed with its request for a plan (`queueNetworkPlan`, as a submission asks); measured: from
 * the commit until the plan in force (network_plans, read every 10 ms) holds it, and this process's CPU meanwhile
 * (PostgreSQL's not counted). The first plan, made from nothing, is measured the same way.
 *
 *   node --import tsx bench/network-plan-job.ts [--changes 5] [--apart-seconds 20]
 */
import { newId, observationsCollection, observatoriesCollection, type ObservationDoc } from "@meridian/db";
import { queueNetworkPlan } from "@meridian/domain/observations";
import { inTransaction } from "@meridian/domain/platform";
import { seededNetwork, type SeededObservation } from "../packages/scheduler/src/network/seeded-network";
import { startWorker } from "@meridian/worker";
import { sql } from "drizzle-orm";
import { loadAverage, makeTempDir, numberOption, removeTempDirs, sleep } from "./lib.mjs";
import { startBenchRuntime } from "./runtime";

const changeCount = numberOption("changes", 5);
const apartMs = numberOption("apart-seconds", 20) * 1000;
const OWNER = "usr_bench_network";

const runtime = await startBenchRuntime(await makeTempDir("network-plan-job"));
const { deps } = runtime;
const network = seededNetwork({ seed: 2026, observatories: 10, observations: 2000, horizonHours: 72, now: new Date() });

/** The seeded observation as the database holds a pending one with these candidates. */
function documentOf(observation: SeededObservation, candidates: string[], now: string): ObservationDoc {
  const { doc } = observation;
  const stored = {
    name: `Network ${observation.id}`,
    projectId: doc.projectId,
    observatoryId: candidates.length === 1 ? candidates[0]! : null,
    candidateObservatoryIds: candidates,
    ownerId: OWNER,
    type: doc.fixedTimeStart ? "fixed_time" : doc.monitoring ? "monitoring" : "flexible",
    priority: observation.priority,
    targets: doc.targets.map((target, index) => ({ name: `T${index}`, epoch: "J2000", ...target })),
    constraints: { minAltitude: 30, maxAirmass: null, moonDistance: null, twilight: "astronomical", ...doc.constraints },
    fixedTimeStart: doc.fixedTimeStart ?? null,
    fixedTimeEnd: doc.fixedTimeEnd ?? null,
    bypassDarkness: false,
    notifications: { email: false, push: false, states: [] },
    status: "pending",
    statusReason: null,
    statusChangedAt: now,
    isMonitoring: Boolean(doc.monitoring),
    monitoring: doc.monitoring ?? null,
    staleReportedAt: null,
  };
  // The seeded network's twilight and monitoring are the planner's types; the document's read them the same.
  return stored as unknown as ObservationDoc;
}

// The observatories, connected and seen now (else each counts as away), with the seeded network's timings.
const now = new Date().toISOString();
const idOf = new Map<string, string>();
await deps.db.transaction(async (tx) => {
  for (const observatory of network.observatories) {
    const timing = network.timings.get(observatory.id)!;
    const stored = await observatoriesCollection.insert(tx, {
      name: `Network ${observatory.id}`,
      owner: { kind: "user", id: OWNER },
      location: observatory.model!.location,
      dispatchEnabled: true,
      connection: { online: true, pluginVersion: "4.0.0.0", lastSeenAt: now },
      settings: { slewSeconds: timing.slewSeconds, readoutSeconds: timing.readoutSeconds },
      createdAt: now,
    });
    idOf.set(observatory.id, stored.id);
  }
  for (let start = 0; start < network.observations.length; start += 500) {
    const rows = network.observations.slice(start, start + 500).map((observation) => {
      const doc = documentOf(
        observation,
        observation.candidateObservatoryIds.map((id) => idOf.get(id)!),
        now,
      );
      return { id: newId("obn"), doc, ...observationsCollection.keys(doc) };
    });
    await tx.insert(observationsCollection.table).values(rows as never);
  }
});
const worker = await startWorker({ deps, databaseUrl: runtime.databaseUrl, applicationName: runtime.applicationName });

const planHolding = async (observationId: string) => {
  const item = JSON.stringify([{ observationId }]);
  const [row] = await deps.db.execute<{ found: boolean }>(sql`
    select (doc->'slots' @> ${item}::jsonb or doc->'unscheduled' @> ${item}::jsonb) as found from network_plans where id = 'current'`);
  return row?.found === true;
};

/** Commits `change` (which asks for a plan in its transaction), then waits for the plan in force to hold `observationId`. */
async function measured(observationId: string, change: Parameters<typeof inTransaction>[1]) {
  await inTransaction(deps, change);
  const cpu = process.cpuUsage();
  const started = performance.now();
  while (!(await planHolding(observationId))) await sleep(10);
  const used = process.cpuUsage(cpu);
  return { wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

const firstObservation = await deps.db.execute<{ id: string }>(sql`select id from observations order by id limit 1`);
const first = await measured(firstObservation[0]!.id, (t) => queueNetworkPlan({ t }));
const changes = [];
for (let index = 0; index < changeCount; index += 1) {
  await sleep(apartMs);
  const template = network.observations[index * 7]!;
  const doc = documentOf(
    { ...template, priority: 10 },
    template.candidateObservatoryIds.map((id) => idOf.get(id)!),
    new Date().toISOString(),
  );
  const id = newId("obn");
  changes.push(
    await measured(id, async (t) => {
      await t.tx.insert(observationsCollection.table).values({ id, doc, ...observationsCollection.keys(doc) } as never);
      await queueNetworkPlan({ t });
    }),
  );
}
const cell = (run: { wallMs: number; cpuMs: number }) => `${run.wallMs.toFixed(0)} ms, ${run.cpuMs.toFixed(0)} ms`;
console.log(`load ${loadAverage()}
first plan, from the commit of its request to the plan in force (wall, this process's CPU): ${cell(first)}
each change, from its commit to the plan in force holding it: ${changes.map(cell).join("; ")}`);
await worker.stop();
await runtime.stop();
await removeTempDirs();
