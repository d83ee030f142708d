import { observationsCollection, observatoriesCollection, type Executor, type ObservationDoc, type StoredDocument } from "@meridian/db";
import { activeStatuses } from "@meridian/rules";
import { sql } from "drizzle-orm";
import type { UserActor } from "../actor";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { publishObservatoryEvent } from "../events/publish";
import { requireObservatoryPermission } from "../permissions/observatory-permissions";
import { pluginIsCurrent, readServerSettings } from "../system/server-settings";
import { observatoryTiming } from "../observatories/time-and-timing";
import { presentObservation } from "./present";
import { observatoryStateOf, planQueue } from "./queue";
import { moveObservation } from "./transitions";
import { inTransaction } from "../transaction";

/** How many waiting observations a plan looks at; beyond these the queue is not the observatory's concern tonight. */
const PLAN_LIMIT = 500;

async function pendingInDispatchOrder(db: Executor, observatoryId: string) {
  const rows = await db.execute<{ id: string; doc: ObservationDoc; created_at: string; updated_at: string }>(sql`
    select id, doc, created_at, updated_at from observations
     where observatory_id = ${observatoryId} and status = 'pending'
     order by priority desc, created_at, id
     limit ${PLAN_LIMIT}`);
  return rows.map((row) => ({ id: row.id, doc: row.doc, createdAt: new Date(row.created_at), updatedAt: new Date(row.updated_at) }));
}

async function isBusy(db: Executor, observatoryId: string): Promise<boolean> {
  const [row] = await db.execute<{ busy: boolean }>(sql`
    select exists (select 1 from observations where observatory_id = ${observatoryId} and status in ${[...activeStatuses]}) as busy`);
  return Boolean(row?.busy);
}

async function currentPlan(db: Executor, observatory: NonNullable<Awaited<ReturnType<typeof observatoriesCollection.get>>>, now: Date) {
  const settings = await readServerSettings(db);
  const state = observatoryStateOf({
    doc: observatory.doc,
    pluginCurrent: pluginIsCurrent({ settings, pluginVersion: observatory.doc.connection.pluginVersion }),
    busy: await isBusy(db, observatory.id),
  });
  return planQueue({ state, pending: await pendingInDispatchOrder(db, observatory.id), now });
}

/**
 * Assigns the observatory its next eligible observation when it is free, and tells its
 * connection (`assign`). The observatory's row lock makes dispatches of one observatory take
 * turns, on every server process; the chosen observation is locked and re-checked before it is
 * moved, so an observation cancelled meanwhile is never sent.
 */
export async function dispatchObservatory(options: { deps: Deps; observatoryId: string }): Promise<StoredDocument<ObservationDoc> | null> {
  const { deps, observatoryId } = options;
  return inTransaction(deps, async (t) => {
    const observatory = await observatoriesCollection.get(t.tx, observatoryId, { forUpdate: true });
    if (!observatory || observatory.doc.removedAt) return null;
    const plan = await currentPlan(t.tx, observatory, t.now());
    for (const item of plan.items) {
      if (!item.eligible) continue;
      const observation = await observationsCollection.get(t.tx, item.observation.id, { forUpdate: true });
      if (observation?.doc.status !== "pending") continue;
      const assigned = await moveObservation({ t, observation, to: "assigned", actor: { kind: "system", id: "dispatch" } });
      const presented = presentObservation({ observation: assigned, timing: observatoryTiming({ doc: observatory.doc }) });
      await publishObservatoryEvent({ t, observatoryIds: [observatoryId], event: { type: "assign", data: { observation: presented } } });
      return assigned;
    }
    return null;
  });
}

/** `GET /observatories/{id}/queue` (can_view): the plan dispatch would follow now. */
export async function getObservatoryQueue(options: { deps: Deps; actor: UserActor; observatoryId: string }) {
  const { deps, actor, observatoryId } = options;
  await requireObservatoryPermission({ db: deps.db, actor, observatoryId, permission: "can_view" });
  const observatory = await observatoriesCollection.get(deps.db, observatoryId);
  if (!observatory) throw new AppError("NOT_FOUND", "No such observatory");
  const plan = await currentPlan(deps.db, observatory, deps.now());
  const timing = observatoryTiming({ doc: observatory.doc });
  return {
    items: plan.items.map((item) => ({
      observation: presentObservation({ observation: item.observation, timing }),
      eligible: item.eligible,
      blockedBy: item.blockedBy ? { code: item.blockedBy.code, until: item.blockedBy.until?.toISOString() ?? null } : null,
    })),
    darkness: plan.darkness ? { start: plan.darkness.start.toISOString(), end: plan.darkness.end.toISOString() } : null,
  };
}
