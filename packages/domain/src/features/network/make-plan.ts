import { readNetworkPlan, type NetworkPlanDoc, type ObservatoryDoc, type StoredDocument } from "@meridian/db";
import { nightOf, PLAN_STEP_MS, planNetwork, shiftDate, type NetworkPlan } from "@meridian/scheduler";
import { sql } from "drizzle-orm";
import type { Deps } from "../../platform/deps";
import { publishToEveryUser } from "../../platform/events/publish";
import { inTransaction } from "../../platform/transaction";
import { queueDispatchAlone } from "../observations";
import { observatoryTimeZone } from "../observatories";
import { loadNetworkInputs, type NetworkInputs, type PlannedObservation } from "./plan-inputs";
import { keptBetweenPlans, seedFromPlanInForce } from "./warm-start";

/** The lock only the planning holds: one process plans at a time across the cluster. */
const PLANNING_LOCK_KEY = "hashtext('meridian:network-plan')";
export const PLANNING_LOCK = sql.raw(PLANNING_LOCK_KEY);
const DAY_MS = 86_400_000;

/** The observatory-local date of a moment (YYYY-MM-DD). */
const localDate = (at: Date, timeZone: string) => new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(at);

/** The observatory's dark periods (the Sun below −18°) that overlap [from, to), as the plan's readers draw them. */
function darkPeriods(observatory: StoredDocument<ObservatoryDoc>, from: Date, to: Date) {
  const { location } = observatory.doc;
  const timeZone = observatoryTimeZone({ doc: observatory.doc });
  const nights: Array<{ darkStart: string; darkEnd: string }> = [];
  if (!location) return { observatoryId: observatory.id, timeZone, nights };
  const first = shiftDate({ date: localDate(from, timeZone), days: -1 });
  const days = Math.ceil((to.getTime() - from.getTime()) / DAY_MS) + 1;
  for (let day = 0; day <= days; day += 1) {
    const night = nightOf({ location, timeZone, date: shiftDate({ date: first, days: day }) });
    if (night?.darkStart && night.darkEnd && night.darkEnd > from && night.darkStart < to) {
      nights.push({ darkStart: night.darkStart.toISOString(), darkEnd: night.darkEnd.toISOString() });
    }
  }
  return { observatoryId: observatory.id, timeZone, nights };
}

/** The plan as it is stored: what its readers need, without the observations' documents. */
function planDocument(plan: NetworkPlan<PlannedObservation>, inputs: NetworkInputs): NetworkPlanDoc {
  const away = new Map(inputs.input.observatories.map((observatory) => [observatory.id, observatory.unavailable]));
  return {
    computedAt: plan.start.toISOString(),
    horizonEnd: plan.horizonEnd.toISOString(),
    objective: plan.objective,
    observatories: inputs.observatories.map((observatory) => ({
      ...darkPeriods(observatory, plan.start, plan.horizonEnd),
      unavailable: away.get(observatory.id) ?? null,
    })),
    slots: plan.blocks.map((block) => ({
      observationId: block.observation.id,
      observatoryId: block.observatoryId,
      name: block.observation.doc.name,
      priority: block.observation.priority,
      run: block.run,
      start: block.start.toISOString(),
      end: block.end.toISOString(),
      observationVersion: inputs.versions.get(block.observation.id),
    })),
    unscheduled: plan.unscheduled.map(({ observation, reasons }) => ({
      observationId: observation.id,
      observationVersion: inputs.versions.get(observation.id),
      reasons: reasons.map(({ plannedAt: _plannedAt, at, ...reason }) => ({
        ...reason,
        until: reason.until?.toISOString() ?? null,
        ...(at ? { at: at.toISOString() } : {}),
      })),
    })),
  };
}

/**
 * Makes the network plan and puts it in force. One planner at a time: the planning lock is held for the
 * whole planning on a connection of its own (a second planner waits for the first, then plans again with
 * what it sees then; a dead process's lock goes with its connection). The inputs are read in one short
 * transaction, after the ids of the requests for a plan it can see (committed before its reads, which
 * therefore cover them), with the plan in force, which seeds the next (warm-start.ts); the plan is
 * computed with no transaction open, so no table lock is held while it thinks (a restore's exclusive
 * locks once waited behind a planning, and every request behind them: CI run 2 of 2026-11-29 night);
 * then one transaction removes those requests and writes the plan. A planning that dies midway writes
 * nothing: the plan before it stays in force, and its requests are still there.
 */
export async function makeNetworkPlan(options: { deps: Deps }): Promise<NetworkPlanDoc> {
  const { deps } = options;
  const connection = await deps.sql.reserve();
  try {
    await connection.unsafe(`select pg_advisory_lock(${PLANNING_LOCK_KEY})`);
    try {
      return await planHoldingTheLock(deps);
    } finally {
      await connection.unsafe(`select pg_advisory_unlock(${PLANNING_LOCK_KEY})`);
    }
  } finally {
    connection.release();
  }
}

async function planHoldingTheLock(deps: Deps): Promise<NetworkPlanDoc> {
  const { requestIds, now, inputs, inForce, kept } = await inTransaction(deps, async (t) => {
    const requests = await t.tx.execute<{ id: string }>(sql`
      select j.id::text as id from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
       where k.identifier = 'network_plan' and j.locked_at is null`);
    const at = t.now();
    const kept = keptBetweenPlans(at);
    const [inputs, inForce] = await Promise.all([
      loadNetworkInputs({ db: t.tx, now: at, horizonHours: t.env.PLAN_HORIZON_HOURS, reassignAfterMinutes: t.env.REASSIGN_AFTER_MINUTES, kept }),
      readNetworkPlan(t.tx),
    ]);
    return { requestIds: requests.map((row) => row.id), now: at, inputs, inForce, kept };
  });
  // Made from the plan in force (whichever process made it) and what this process kept from its plan before: see warm-start.ts.
  const previous = seedFromPlanInForce({ stored: inForce, observations: inputs.input.observations });
  const doc = planDocument(planNetwork(inputs.input, { previous, cache: kept.cache }), inputs);
  return inTransaction(deps, async (t) => {
    if (requestIds.length > 0)
      await t.tx.execute(sql`delete from graphile_worker._private_jobs where id = any(${`{${requestIds.join(",")}}`}::bigint[]) and locked_at is null`);
    await t.tx.execute(sql`
      insert into network_plans (id, computed_at, revision, doc) values ('current', ${doc.computedAt}, 1, ${JSON.stringify(doc)}::jsonb)
      on conflict (id) do update set computed_at = excluded.computed_at, revision = network_plans.revision + 1, doc = excluded.doc`);
    // Clients read the plan again: every connected user is told when, never what (each reads what it may see).
    await publishToEveryUser({ t, event: { type: "network.plan_changed", data: { computedAt: doc.computedAt } } });
    // Dispatch follows the plan: each observatory it starts work at within a step is dispatched (a busy or held one assigns nothing),
    // in the order of their ids, the order every transaction asks for several dispatches in (queueDispatchAtEach: no deadlock).
    const soon = now.getTime() + PLAN_STEP_MS;
    const startingSoon = new Set(doc.slots.filter((slot) => Date.parse(slot.start) <= soon).map((slot) => slot.observatoryId));
    await Promise.all([...startingSoon].sort().map((observatoryId) => queueDispatchAlone({ t, observatoryId })));
    return doc;
  });
}
