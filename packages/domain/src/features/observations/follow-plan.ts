import type { Executor, ObservationDoc, StoredDocument } from "@meridian/db";
import { PLAN_STEP_MS, type QueueBlock } from "@meridian/scheduler";
import { sql } from "drizzle-orm";
import { waitingAt } from "./waiting-at";

interface PlannedRun {
  observationId: string;
  observatoryId: string;
  start: Date;
  end: Date;
}

/** The network plan's runs that concern one dispatch: those at the observatory and those of its waiting observations. */
export interface PlanAtObservatory {
  computedAt: Date | null;
  runs: PlannedRun[];
  /** The waiting observations the plan left out (it saw them and runs them nowhere), with its reason at the observatory. */
  leftOut: ReadonlyMap<string, QueueBlock>;
}

/** An observation waiting at the observatory as dispatch reads it, in SQL. */
const waitingHere = (observatoryId: string) => sql`(select waiting.id from observations waiting where ${waitingAt({ alias: "waiting", observatoryId })})`;

/** The plan's reason at the observatory for each waiting observation it left out. */
async function leftOutAt(db: Executor, observatoryId: string): Promise<Map<string, QueueBlock>> {
  const rows = await db.execute<{ observation_id: string; code: QueueBlock["code"]; until: string | null }>(sql`
    select item->>'observationId' as observation_id, reason->>'code' as code, reason->>'until' as until
      from network_plans p, jsonb_array_elements(p.doc->'unscheduled') item, jsonb_array_elements(item->'reasons') reason
     where p.id = 'current' and reason->>'observatoryId' = ${observatoryId} and item->>'observationId' in ${waitingHere(observatoryId)}`);
  return new Map(rows.map((row) => [row.observation_id, { code: row.code, until: row.until ? new Date(row.until) : null }]));
}

/** The runs of the plan in force, not yet over, at the observatory or of an observation waiting there as dispatch reads it (`waitingAt`). */
export async function planAtObservatory(options: { db: Executor; observatoryId: string; now: Date }): Promise<PlanAtObservatory> {
  const { db, observatoryId, now } = options;
  const [leftOut, rows] = await Promise.all([
    leftOutAt(db, observatoryId),
    db.execute<{ computed_at: string; slot: { observationId: string; observatoryId: string; start: string; end: string } | null }>(sql`
    select p.computed_at, s.slot from network_plans p
      left join lateral (
        select slot from jsonb_array_elements(p.doc->'slots') slot
         where (slot->>'observatoryId' = ${observatoryId}
                or slot->>'observationId' in ${waitingHere(observatoryId)})
           and (slot->>'end')::timestamptz > ${now.toISOString()}::timestamptz
      ) s on true
     where p.id = 'current'`),
  ]);
  const runs = rows.flatMap((row) =>
    row.slot
      ? [{ observationId: row.slot.observationId, observatoryId: row.slot.observatoryId, start: new Date(row.slot.start), end: new Date(row.slot.end) }]
      : [],
  );
  return {
    computedAt: rows[0] ? new Date(rows[0].computed_at) : null,
    runs: runs.sort((a, b) => a.start.getTime() - b.start.getTime()),
    leftOut,
  };
}

interface QueueItem {
  observation: StoredDocument<ObservationDoc>;
  eligible: boolean;
  blockedBy: QueueBlock | null;
  reasons: QueueBlock[];
}

/**
 * The queue as dispatch follows the network plan (docs/api-contract.md, "Network scheduling"): of
 * the observations eligible now, one the plan starts here within a step of now (`PLAN_STEP_MS`: its
 * starts lie on five-minute boundaries or right after the run before) stays eligible (and
 * goes first, by its planned start); one it starts later here waits with PLANNED_LATER (until that
 * start), one it runs at another observatory with PLANNED_ELSEWHERE, after every other reason (an
 * eligible one has none). One the plan left out as it is now (it saw it, unchanged since, and runs it
 * nowhere) waits with the plan's reason here (ALLOCATION_EXHAUSTED when its runs spend what the project
 * has left for work worth more later): filling a gap with it would undo the plan. One the plan has not
 * seen (submitted or changed since it was made) stays eligible when it would end before the next run the
 * plan starts here, else waits OBSERVATORY_BUSY until that run. Without a plan, the queue is as dispatch
 * alone makes it. `toAssign`: the eligible in the order dispatch tries them,
 * what the plan starts here now first (by planned start; the sort is stable, so ties keep dispatch's order). `replan`: a run the plan starts here
 * now cannot start, for a change the plan has not seen (its observation moved on or was edited since).
 */
export function followNetworkPlan(options: {
  items: QueueItem[];
  plan: PlanAtObservatory;
  observatoryId: string;
  now: Date;
  durationMs: (observation: StoredDocument<ObservationDoc>) => number;
}): { items: QueueItem[]; toAssign: QueueItem[]; replan: boolean } {
  const { plan, observatoryId, now } = options;
  if (!plan.computedAt) return { items: options.items, toAssign: options.items.filter((item) => item.eligible), replan: false };
  const soon = now.getTime() + PLAN_STEP_MS;
  const nextRun = new Map<string, PlannedRun>();
  for (const run of plan.runs) if (!nextRun.has(run.observationId)) nextRun.set(run.observationId, run);
  const here = plan.runs.filter((run) => run.observatoryId === observatoryId);
  const nextHere = here.find((run) => run.start.getTime() > soon)?.start ?? null;
  const hold = (item: QueueItem, block: QueueBlock): QueueItem => ({ ...item, eligible: false, blockedBy: block, reasons: [block] });
  const items = options.items.map((item): QueueItem => {
    if (!item.eligible) return item;
    const run = nextRun.get(item.observation.id);
    if (run && run.observatoryId !== observatoryId) return hold(item, { code: "PLANNED_ELSEWHERE", until: run.start, observatoryId: run.observatoryId });
    if (run && run.start.getTime() > soon) return hold(item, { code: "PLANNED_LATER", until: run.start });
    if (run) return item;
    const leftOut = plan.leftOut.get(item.observation.id);
    if (leftOut && item.observation.updatedAt <= plan.computedAt!) return hold(item, leftOut);
    const fits = !nextHere || now.getTime() + options.durationMs(item.observation) <= nextHere.getTime();
    return fits ? item : hold(item, { code: "OBSERVATORY_BUSY", until: nextHere });
  });
  // Dispatch takes what the plan starts here now first, by its planned start; else the first eligible in dispatch order.
  const plannedStart = (item: QueueItem) => (item.eligible ? (nextRun.get(item.observation.id)?.start.getTime() ?? Number.POSITIVE_INFINITY) : Number.NaN);
  const toAssign = items.filter((item) => item.eligible).sort((a, b) => plannedStart(a) - plannedStart(b));
  const waiting = new Map(options.items.map((item) => [item.observation.id, item.observation]));
  const eligible = new Set(items.filter((item) => item.eligible).map((item) => item.observation.id));
  const replan = here.some((run) => {
    if (run.start.getTime() > soon || eligible.has(run.observationId)) return false;
    const observation = waiting.get(run.observationId);
    return !observation || observation.updatedAt > plan.computedAt!;
  });
  return { items, toAssign, replan };
}
