import {
  observationsCollection,
  observatoriesCollection,
  storedFromRow,
  type Executor,
  type ObservationDoc,
  type ObservatoryDoc,
  type StoredDocument,
} from "@meridian/db";
import { activeStatuses, type ObservationStatus } from "@meridian/rules";
import {
  DISPATCH_WINDOW,
  isDaylight,
  observatoryReasons,
  observatoryStateOf,
  planQueue,
  presentQueueBlock,
  skyModel,
  type ObservatoryState,
  type SkyModel,
} from "@meridian/scheduler";
import { sql, type SQL } from "drizzle-orm";
import { isDeepStrictEqual } from "node:util";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { publishObservatoryEvent } from "../../platform/events/publish";
import { requireObservatoryPermission } from "../permissions";
import { pluginIsCurrent, readServerSettings } from "../system";
import { observatoryTiming } from "../observatories";
import { progressBeforeFrames, progressOfObservations } from "./observation-progress";
import { estimatedSecondsOf, presentObservations } from "./timings";
import { presentObservation } from "./present";
import { DISPATCH_ACTOR, moveObservation, queueNetworkPlan } from "./transitions";
import { followNetworkPlan, observationVersion, planAtObservatory, type VersionedObservation } from "./follow-plan";
import { waitingAt } from "./waiting-at";
import { inTransaction, type InTransaction } from "../../platform/transaction";
import { allowancesAt } from "./allowances";
import { markDispatch } from "./dispatch-trace";

/** Whether one of the observatory's observations is under way: `observatoryId` is a value or a column of the outer query. */
const underWayAt = (observatoryId: string | SQL) =>
  sql`exists (select 1 from observations active where active.observatory_id = ${observatoryId} and active.status in ${[...activeStatuses]})`;

/**
 * `unlessBusy`: none while one of the observatory's observations is under way, when a plan could
 * assign nothing anyway (a dispatch queued by each submission to an observatory that observes all
 * night would otherwise read and parse up to DISPATCH_WINDOW documents). This read and the plan's
 * busy check may see different moments; busy at either, the dispatch assigns nothing, and the end
 * of what was under way queues the next one.
 * `bypassingDarknessOnly`: by day only those may be eligible, and the rest are not read.
 */
async function pendingInDispatchOrder(db: Executor, observatoryId: string, options: { unlessBusy: boolean; bypassingDarknessOnly: boolean }) {
  const unlessBusy = options.unlessBusy ? sql`and not ${underWayAt(observatoryId)}` : sql``;
  const bypassing = options.bypassingDarknessOnly ? sql`and (doc->>'bypassDarkness')::boolean` : sql``;
  const rows = await db.execute<{ id: string; doc: ObservationDoc; created_at: string; updated_at: string; version: string }>(sql`
    select id, doc, created_at, updated_at, ${observationVersion("waiting")} as version from observations waiting
     where ${waitingAt({ alias: "waiting", observatoryId })} ${unlessBusy} ${bypassing}
     order by priority desc, created_at, id
     limit ${DISPATCH_WINDOW}`);
  return rows.map((row): VersionedObservation => ({ ...storedFromRow(row), version: row.version }));
}

async function isBusy(db: Executor, observatoryId: string): Promise<boolean> {
  const [row] = await db.execute<{ busy: boolean }>(sql`
    select ${underWayAt(observatoryId)} as busy`);
  return Boolean(row?.busy);
}

/** The observatory as dispatch sees it now: connection, switch, plugin version, safety and whether it is busy. */
export async function observatoryStateNow(options: { db: Executor; observatory: StoredDocument<ObservatoryDoc> }): Promise<ObservatoryState> {
  const { db, observatory } = options;
  const [settings, busy] = await Promise.all([readServerSettings(db), isBusy(db, observatory.id)]);
  return observatoryStateOf({
    doc: observatory.doc,
    pluginCurrent: pluginIsCurrent({ settings, pluginVersion: observatory.doc.connection.pluginVersion }),
    busy,
  });
}

/** Whether the sun is up past every twilight's limit here now: no observation that waits for darkness may start. */
async function currentPlan(db: Executor, observatory: StoredDocument<ObservatoryDoc>, now: Date, explain = false) {
  const { location } = observatory.doc;
  const model = location ? skyModel({ location }) : null;
  // The plan's reads are independent: they go out together.
  const [state, allowances, pending, network] = await Promise.all([
    observatoryStateNow({ db, observatory }),
    allowancesAt({ db, observatory, now }),
    // The queue's page explains every waiting observation; a dispatch reads none while the observatory
    // is busy, and by day only those that bypass darkness (an idle observatory's day of submissions and
    // minutes would otherwise plan its whole queue each time to find every one NOT_DARK).
    pendingInDispatchOrder(db, observatory.id, { unlessBusy: !explain, bypassingDarknessOnly: !explain && isDaylight(model, now) }),
    planAtObservatory({ db, observatoryId: observatory.id, now }),
  ]);
  const queue = planAt({ observatory, state, pending, now, allowances, explain, model });
  const durationMs = (observation: StoredDocument<ObservationDoc>) => estimatedSecondsOf({ doc: observation.doc, observatory: observatory.doc }) * 1000;
  const followed = followNetworkPlan({ items: queue.items, plan: network, observatoryId: observatory.id, now, durationMs });
  return { ...queue, ...followed, free: observatoryReasons(state).length === 0 };
}

/** The plan over these waiting observations, with the observatory's own durations and sky: the one both ways into dispatch follow. */
function planAt<Observation extends StoredDocument<ObservationDoc>>(
  options: Omit<Parameters<typeof planQueue<Observation>>[0], "durationMs" | "model"> & {
    observatory: StoredDocument<ObservatoryDoc>;
    model: SkyModel | null;
  },
) {
  const { observatory, model, ...plan } = options;
  const durationMs = (observation: StoredDocument<ObservationDoc>) => estimatedSecondsOf({ doc: observation.doc, observatory: observatory.doc }) * 1000;
  return planQueue({ ...plan, durationMs, ...(model ? { model } : {}) });
}

/**
 * The observatories the minute's dispatch is for: online, not removed, with an observation that waits and none under way.
 * Time alone (darkness beginning, a window opening) can make a waiting observation eligible; an observatory with nothing
 * waiting, or busy (its end queues a dispatch of its own), has nothing a dispatch could assign. One statement, however many
 * observatories are connected.
 */
export async function observatoriesAwaitingDispatch(options: { db: Executor }): Promise<string[]> {
  const rows = await options.db.execute<{ id: string }>(sql`
    select o.id from observatories o
     where (o.doc->'connection'->>'online')::boolean and o.doc->>'removedAt' is null
       and exists (select 1 from observations waiting where ${waitingAt({ alias: "waiting", observatoryId: sql`o.id` })})
       and not ${underWayAt(sql`o.id`)}`);
  return rows.map((row) => row.id);
}

/**
 * The observatory's observations that are assigned and not yet started, as `assign` presents them.
 * A plugin that says hello gets them again: an `assign` sent while its connection was being lost
 * (its server process died, its link broke) reached no one, and the observatory, busy with it,
 * would get nothing else. A plugin that already has one ignores the repeat.
 */
export async function unstartedAssignments(options: { db: Executor; observatoryId: string }) {
  const { db, observatoryId } = options;
  const rows = await db.execute<{ id: string; doc: ObservationDoc; created_at: string; updated_at: string }>(sql`
    select id, doc, created_at, updated_at from observations
     where observatory_id = ${observatoryId} and status = 'assigned'
     order by updated_at, id`);
  return presentObservations({
    db,
    observations: rows.map(storedFromRow),
  });
}

/** The status of each of these observations that is still the observatory's (its connection asks after what it was told). */
export async function statusesAtObservatory(options: { db: Executor; observatoryId: string; observationIds: string[] }) {
  const { db, observatoryId, observationIds } = options;
  if (observationIds.length === 0) return new Map<string, ObservationStatus>();
  const rows = await db.execute<{ id: string; status: ObservationStatus }>(sql`
    select id, status from observations
     where id in ${observationIds}
       and (observatory_id = ${observatoryId} or (observatory_id is null and candidate_observatory_ids @> array[${observatoryId}]::text[]))`);
  return new Map(rows.map((row) => [row.id, row.status]));
}

/** How many times one dispatch plans again when the observation it chose was edited since the plan was read. */
const MAX_PLANS_PER_DISPATCH = 3;

/**
 * Assigns the observatory its next eligible observation when it is free, and tells its
 * connection (`assign`). The observatory's row lock makes dispatches of one observatory take
 * turns, on every server process; the chosen observation is locked and re-checked before it is
 * moved, so an observation cancelled meanwhile is never sent.
 */
export async function dispatchObservatory(options: { deps: Deps; observatoryId: string }): Promise<StoredDocument<ObservationDoc> | null> {
  const { deps, observatoryId } = options;
  markDispatch({ stage: "job started", observatoryId });
  const assigned = await inTransaction(deps, async (t) => {
    const observatory = await observatoriesCollection.get(t.tx, observatoryId, { forUpdate: true });
    if (!observatory || observatory.doc.removedAt) return null;
    // Offline, dispatch off or unsafe holds every observation, which its document alone tells: no
    // plan then, whose reads parse up to DISPATCH_WINDOW documents for each submission to it.
    if (observatoryReasons(observatoryStateOf({ doc: observatory.doc, pluginCurrent: true, busy: false })).length > 0) return null;
    // The plan is read before its observations are locked: one edited meanwhile (its window, its
    // constraints) is judged again by a new plan, which also sees the edit's commit. An edit is
    // rare beside a dispatch, so a few plans are plenty; a later dispatch takes what is left.
    for (let planned = 0; planned < MAX_PLANS_PER_DISPATCH; planned += 1) {
      const plan = await currentPlan(t.tx, observatory, t.now());
      let changed = false;
      for (const item of plan.toAssign) {
        const observation = await observationsCollection.get(t.tx, item.observation.id, { forUpdate: true });
        if (observation?.doc.status !== "pending") continue;
        if (!isDeepStrictEqual(observation.doc, item.observation.doc)) {
          changed = true;
          break;
        }
        // Its frames (from earlier runs) are counted alongside the move's writes, in the same round trip.
        const [assigned, progressOf] = await Promise.all([
          // Locked and found pending: assigned here only, however many of its candidates dispatch meanwhile.
          moveObservation({ t, observation, to: "assigned", actor: DISPATCH_ACTOR, at: observatoryId }),
          progressOfObservations({ db: t.tx, observations: [observation] }),
        ]);
        const presented = presentObservation({ observation: assigned, timing: observatoryTiming({ doc: observatory.doc }), progress: progressOf(observation) });
        // Goes out with the transaction's last statement: nothing here waits for it.
        t.alongside(publishObservatoryEvent({ t, observatoryIds: [observatoryId], event: { type: "assign", data: { observation: presented } } }));
        return assigned;
      }
      // What the plan starts here now cannot start, for a change it has not seen: it is made again at once, and its
      // job dispatches the observatories it then starts work at.
      if (plan.replan && plan.free) await queueNetworkPlan({ t });
      if (!changed) return null;
    }
    return null;
  });
  if (assigned) markDispatch({ stage: "dispatch committed", observatoryId, observationId: assigned.id });
  return assigned;
}

/** An observatory held for a new observation's assignment in the transaction that creates it. */
export interface IdleObservatory {
  observatory: StoredDocument<ObservatoryDoc>;
  pluginCurrent: boolean;
  /** The transaction's start by PostgreSQL's clock (`now()`): the creation time of a row it writes, known before the write answers. */
  heldAt: Date;
}

/**
 * The observatory, locked, when a new observation could be assigned there in the transaction that
 * creates it: online, not removed, nothing waiting and nothing under way, and no other transaction
 * on its row (a dispatch, another submission). Nothing here waits: any other observatory gets its
 * assignment from the dispatch job the submission queues, as before. Read with the submission's
 * checks, so an idle observatory's `assign` goes out with the submission's commit rather than after
 * a job's pickup and a second transaction (issue 26, point 4).
 */
export async function holdIdleObservatory(options: { t: Pick<InTransaction, "tx">; observatoryId: string }): Promise<IdleObservatory | null> {
  const { t, observatoryId } = options;
  const [rows, settings] = await Promise.all([
    t.tx.execute<{ id: string; doc: ObservatoryDoc; created_at: string; updated_at: string; held_at: string }>(sql`
      select o.id, o.doc, o.created_at, o.updated_at, now() as held_at from observatories o
       where o.id = ${observatoryId} and (o.doc->'connection'->>'online')::boolean and o.doc->>'removedAt' is null
         and not exists (select 1 from observations waiting where ${waitingAt({ alias: "waiting", observatoryId: sql`o.id` })})
         and not ${underWayAt(sql`o.id`)}
       for update of o skip locked`),
    readServerSettings(t.tx),
  ]);
  const [row] = rows;
  if (!row) return null;
  const observatory = storedFromRow(row);
  // Dispatch off or unsafe holds every observation, as a dispatch would find.
  if (observatoryReasons(observatoryStateOf({ doc: observatory.doc, pluginCurrent: true, busy: false })).length > 0) return null;
  return {
    observatory,
    pluginCurrent: pluginIsCurrent({ settings, pluginVersion: observatory.doc.connection.pluginVersion }),
    heldAt: new Date(row.held_at),
  };
}

/** Whether `candidate`, about to be the only observation waiting at the held idle observatory, may start now, by the plan a dispatch follows. */
export async function mayStartAtIdle(options: { t: InTransaction; idle: IdleObservatory; candidate: StoredDocument<ObservationDoc> }): Promise<boolean> {
  const { t, idle, candidate } = options;
  const { observatory, pluginCurrent } = idle;
  const now = t.now();
  const { location } = observatory.doc;
  const plan = planAt({
    observatory,
    state: observatoryStateOf({ doc: observatory.doc, pluginCurrent, busy: false }),
    pending: [candidate],
    now,
    allowances: await allowancesAt({ db: t.tx, observatory, now }),
    model: location ? skyModel({ location }) : null,
  });
  return plan.items[0]?.eligible === true;
}

/** Tells the held idle observatory's connection (`assign`), once the transaction commits, of the new observation written assigned to it. */
export function tellIdleObservatory(options: { t: InTransaction; idle: IdleObservatory; observation: StoredDocument<ObservationDoc> }) {
  const { t, idle, observation } = options;
  const presented = presentObservation({
    observation,
    timing: observatoryTiming({ doc: idle.observatory.doc }),
    progress: progressBeforeFrames(observation.doc.targets),
  });
  t.alongside(publishObservatoryEvent({ t, observatoryIds: [idle.observatory.id], event: { type: "assign", data: { observation: presented } } }));
}

/** `GET /observatories/{id}/queue` (can_view): the plan dispatch would follow now. */
export async function getObservatoryQueue(options: { deps: Deps; actor: UserActor; observatoryId: string }) {
  const { deps, actor, observatoryId } = options;
  await requireObservatoryPermission({ db: deps.db, actor, observatoryId, permission: "can_view" });
  const observatory = await observatoriesCollection.get(deps.db, observatoryId);
  if (!observatory) throw new AppError("NOT_FOUND", "No such observatory");
  const plan = await currentPlan(deps.db, observatory, deps.now(), true);
  const timing = observatoryTiming({ doc: observatory.doc });
  const progressOf = await progressOfObservations({ db: deps.db, observations: plan.items.map((item) => item.observation) });
  const present = presentQueueBlock;
  return {
    items: plan.items.map((item) => ({
      observation: presentObservation({ observation: item.observation, timing, progress: progressOf(item.observation) }),
      eligible: item.eligible,
      blockedBy: item.blockedBy ? present(item.blockedBy) : null,
      reasons: item.reasons.map(present),
    })),
    darkness: plan.darkness ? { start: plan.darkness.start.toISOString(), end: plan.darkness.end.toISOString() } : null,
  };
}
