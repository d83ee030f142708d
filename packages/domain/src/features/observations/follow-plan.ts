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

/**
 * An observation with its row's version (`xmin`, the transaction that wrote it): the plan records the version it read,
 * so whether it saw an observation as it is now is a comparison of versions, not of a row's time (the database's clock)
 * with the plan's (the server's).
 */
export type VersionedObservation = StoredDocument<ObservationDoc> & { version: string };
/** The version of the observation row `alias` (of this query), as `VersionedObservation` and the plan record it. */
export const observationVersion = (alias: string) => sql`${sql.raw(alias)}.xmin::text`;

/** The network plan's runs that concern one dispatch: those at the observatory and those of its waiting observations. */
export interface PlanAtObservatory {
  computedAt: Date | null;
  runs: PlannedRun[];
  /** The waiting observations the plan left out (it saw them and runs them nowhere), with its reason at the observatory. */
  leftOut: ReadonlyMap<string, QueueBlock>;
  /** The version of each observation of `runs` and `leftOut` as the plan read it (none in a plan made before it recorded them). */
  seenVersions: ReadonlyMap<string, string>;
}

/** An observation waiting at the observatory as dispatch reads it, in SQL. */
const waitingHere = (observatoryId: string) => sql`(select waiting.id from observations waiting where ${waitingAt({ alias: "waiting", observatoryId })})`;

interface StoredSlot {
  observationId: string;
  observatoryId: string;
  start: string;
  end: string;
  observationVersion?: string;
}
interface StoredReasonHere {
  observationId: string;
  observationVersion: string | null;
  code: QueueBlock["code"];
  until: string | null;
}

/**
 * The plan in force as one dispatch at the observatory needs it, in one read: its runs not yet over at the observatory or
 * of an observation waiting there as dispatch reads it (`waitingAt`), and its reason here for each waiting one it left out.
 */
export async function planAtObservatory(options: { db: Executor; observatoryId: string; now: Date }): Promise<PlanAtObservatory> {
  const { db, observatoryId, now } = options;
  const [row] = await db.execute<{ computed_at: string; slots: StoredSlot[]; left_out: StoredReasonHere[] }>(sql`
    select p.computed_at,
           (select coalesce(jsonb_agg(slot), '[]') from jsonb_array_elements(p.doc->'slots') slot
             where (slot->>'observatoryId' = ${observatoryId} or slot->>'observationId' in ${waitingHere(observatoryId)})
               and (slot->>'end')::timestamptz > ${now.toISOString()}::timestamptz) as slots,
           (select coalesce(jsonb_agg(jsonb_build_object('observationId', item->'observationId', 'observationVersion', item->'observationVersion',
                                                         'code', reason->'code', 'until', reason->'until')), '[]')
              from jsonb_array_elements(p.doc->'unscheduled') item, jsonb_array_elements(item->'reasons') reason
             where reason->>'observatoryId' = ${observatoryId} and item->>'observationId' in ${waitingHere(observatoryId)}) as left_out
      from network_plans p where p.id = 'current'`);
  if (!row) return { computedAt: null, runs: [], leftOut: new Map(), seenVersions: new Map() };
  const seenVersions = new Map<string, string>();
  for (const seen of [...row.slots, ...row.left_out]) if (seen.observationVersion) seenVersions.set(seen.observationId, seen.observationVersion);
  const runs = row.slots.map((slot) => ({
    observationId: slot.observationId,
    observatoryId: slot.observatoryId,
    start: new Date(slot.start),
    end: new Date(slot.end),
  }));
  return {
    computedAt: new Date(row.computed_at),
    runs: runs.sort((a, b) => a.start.getTime() - b.start.getTime()),
    leftOut: new Map(row.left_out.map((reason) => [reason.observationId, { code: reason.code, until: reason.until ? new Date(reason.until) : null }])),
    seenVersions,
  };
}

interface QueueItem {
  observation: VersionedObservation;
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
 * eligible one has none). One the plan left out as it is now (it read the row version it has now, and runs it
 * nowhere) waits with the plan's reason here (ALLOCATION_EXHAUSTED when its runs spend what the project
 * has left for work worth more later): filling a gap with it would undo the plan. One the plan has not
 * seen (submitted or changed since it read it: another version) stays eligible when it would end before the next run the
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
  const seenAsItIs = (observation: VersionedObservation) => plan.seenVersions.get(observation.id) === observation.version;
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
    if (leftOut && seenAsItIs(item.observation)) return hold(item, leftOut);
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
    return !observation || !seenAsItIs(observation);
  });
  return { items, toAssign, replan };
}
