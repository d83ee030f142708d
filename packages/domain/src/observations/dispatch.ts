import { observationsCollection, observatoriesCollection, type Executor, type ObservationDoc, type StoredDocument } from "@meridian/db";
import { activeStatuses } from "@meridian/rules";
import { sql } from "drizzle-orm";
import type { UserActor } from "../actor";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { publishObservatoryEvent } from "../events/publish";
import { requireObservatoryPermission } from "../permissions/observatory-permissions";
import { pluginIsCurrent, readServerSettings } from "../system/server-settings";
import { presentObservation } from "./present";
import { observatoryStateOf, planQueue } from "./queue";
import { moveObservation } from "./transitions";

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

async function currentPlan(db: Executor, deps: Pick<Deps, "now">, observatory: NonNullable<Awaited<ReturnType<typeof observatoriesCollection.get>>>) {
  const settings = await readServerSettings(db);
  const state = observatoryStateOf(observatory.doc, {
    pluginCurrent: pluginIsCurrent(settings, observatory.doc.connection.pluginVersion),
    busy: await isBusy(db, observatory.id),
  });
  return planQueue(state, await pendingInDispatchOrder(db, observatory.id), deps.now());
}

/**
 * Assigns the observatory its next eligible observation when it is free, and tells its
 * connection (`assign`). The observatory's row lock makes dispatches of one observatory take
 * turns, on every server process; the chosen observation is locked and re-checked before it is
 * moved, so an observation cancelled meanwhile is never sent.
 */
export async function dispatchObservatory(options: { deps: Deps; observatoryId: string }): Promise<StoredDocument<ObservationDoc> | null> {
  const { deps, observatoryId } = options;
  return deps.db.transaction(async (tx) => {
    const observatory = await observatoriesCollection.get(tx, observatoryId, { forUpdate: true });
    if (!observatory) return null;
    const plan = await currentPlan(tx, deps, observatory);
    for (const item of plan.items) {
      if (!item.eligible) continue;
      const observation = await observationsCollection.get(tx, item.observation.id, { forUpdate: true });
      if (observation?.doc.status !== "pending") continue;
      const assigned = await moveObservation(tx, deps, { observation, to: "assigned", actor: { kind: "system", id: "dispatch" } });
      await publishObservatoryEvent(tx, { observatoryIds: [observatoryId], event: { type: "assign", data: { observation: presentObservation(assigned) } } });
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
  const plan = await currentPlan(deps.db, deps, observatory);
  return {
    items: plan.items.map((item) => ({
      observation: presentObservation(item.observation),
      eligible: item.eligible,
      blockedBy: item.blockedBy ? { code: item.blockedBy.code, until: item.blockedBy.until?.toISOString() ?? null } : null,
    })),
    darkness: plan.darkness ? { start: plan.darkness.start.toISOString(), end: plan.darkness.end.toISOString() } : null,
  };
}
