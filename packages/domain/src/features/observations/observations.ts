import { requireStorageDestination } from "../organizations/destinations";
import { observationsCollection, storedFromRow, tables, usersCollection, type ObservationDoc } from "@meridian/db";
import { pluginMayReport, pluginReportableStatuses, type ObservationStatus } from "@meridian/rules";
import { monitoringProblems } from "@meridian/rules/observations";
import { and, asc, desc, eq, sql } from "drizzle-orm";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { AppError, fieldError } from "../../platform/errors";
import { holdLiveObservatory } from "../observatories/remove";
import { requireObservatoryPermission } from "../permissions";
import { loadProjectAccess } from "../projects/projects";
import { loadObservationAccess, observationReaderIds } from "./access";
import { clonedFromOf } from "./clone-reason";
import { loadUsersById } from "../users";
import { holdProjectForObservation, insertObservation, newObservationDoc, refuseInvalidWindow, refuseWindowInThePast, requireRoom } from "./insert";
import { refuseEndedCadence } from "./monitoring";
import { observationConditions, observationOrder, type ObservationFilter } from "./observation-query";
import { observationTimings, presentObservations, presentOneObservation } from "./timings";
import { presentObservation } from "./present";
import { progressBeforeFrames } from "./observation-progress";
import type { ObservationCreate, ObservationHistoryOrder, ObservationUpdate } from "./schemas";
import { moveObservation, queueDispatch } from "./transitions";
import { inTransaction } from "../../platform/transaction";
import { markDispatch } from "./dispatch-trace";
import { holdIdleObservatory, mayStartAtIdle } from "./dispatch";
import { isAtObservatory } from "./failover";
import { instantKey, keysetCursor } from "../../platform/validation/keyset-cursor";

/** A cadence left on an observation whose update names another type: refused at the field, as the create schema refuses it. */
function refuseCadenceOfAnotherType(merged: { type: string }, update: ObservationUpdate) {
  const problems = monitoringProblems({ type: merged.type, monitoring: update.monitoring });
  if (problems.length > 0)
    throw new AppError("VALIDATION_FAILED", "A monitoring cadence is only for a monitoring observation", {
      errors: problems.map((problem) => fieldError(problem)),
    });
}

/** A settled check's value, or its refusal thrown. */
function settled<T>(result: PromiseSettledResult<T>): T {
  if (result.status === "rejected") throw result.reason;
  return result.value;
}

/** `can_observe` on the observatory and membership of an active project; the caller owns the new observation. */
export async function createObservation(options: { deps: Deps; actor: UserActor; input: ObservationCreate }) {
  const { deps, actor, input } = options;
  markDispatch({ stage: "request started", observatoryId: input.observatoryId });
  const created = await inTransaction(deps, async (t) => {
    // The reads go out together (one round trip); their refusals are judged in this order, whichever came back first.
    const [permission, projectAccess, destination, live, held, timings, idleAt, owner, readers] = await Promise.allSettled([
      requireObservatoryPermission({ db: t.tx, actor, observatoryId: input.observatoryId, permission: "can_observe" }),
      loadProjectAccess({ db: t.tx, actor, projectId: input.projectId }),
      requireStorageDestination({ db: t.tx, projectId: input.projectId, destinationId: input.storageDestinationId }),
      // A removal that committed since the permission was granted cancelled what waits there: nothing new goes there.
      holdLiveObservatory({ t, observatoryId: input.observatoryId }),
      // The project's status under its lock (after the observatory's, as a clone takes them), not as read above:
      // archiving it waits for this creation, and a deletion committed meanwhile leaves it missing. Its cap is
      // counted under the same lock.
      holdProjectForObservation({ t, projectId: input.projectId }),
      // What the answer's estimate follows, read now rather than after the writes.
      observationTimings({ db: t.tx, observatoryIds: [input.observatoryId] }),
      // Last, after the observatory's key share above: never waits.
      holdIdleObservatory({ t, observatoryId: input.observatoryId }),
      // The owner's notice of an assignment at once needs their preferences.
      usersCollection.get(t.tx, actor.id),
      // Who hears of it, read now so its events go out with its writes.
      observationReaderIds({ db: t.tx, doc: { ownerId: actor.id, projectId: input.projectId, observatoryId: input.observatoryId } }),
    ]);
    settled(permission);
    settled(projectAccess);
    const { project, room } = settled(held);
    if (!project) throw new AppError("NOT_FOUND", "No such project");
    const { status } = project;
    if (status !== "active") throw new AppError("PROJECT_NOT_ACTIVE", `The project is ${status}; observations go into active projects`);
    refuseWindowInThePast({ window: input, now: t.now() });
    refuseEndedCadence({ monitoring: input.monitoring, now: t.now() });
    settled(destination);
    if (!settled(live)) throw new AppError("NOT_FOUND", "No such observatory");
    const idle = settled(idleAt);
    // Judged before it is written, as the only observation waiting there: assigned at once, it needs no dispatch job.
    const now = t.now();
    const candidate = { id: "", doc: newObservationDoc({ actor, fields: input, now: now.toISOString() }), createdAt: now, updatedAt: now };
    const assignNow = idle !== null && (await mayStartAtIdle({ t, idle, candidate }));
    const inserting = insertObservation({
      t,
      actor,
      fields: input,
      room: requireRoom(room),
      reason: null,
      readers: settled(readers),
      ...(assignNow ? { assigned: { owner: settled(owner) ?? null, idle } } : {}),
    });
    // Its statements are sent: the transaction's closing count goes with them, not in a round trip after.
    t.writesSent();
    return presentObservation({ observation: await inserting, timing: settled(timings)(input.observatoryId), progress: progressBeforeFrames(input.targets) });
  });
  markDispatch({ stage: "request committed", observatoryId: created.observatoryId, observationId: created.id });
  if (created.status === "assigned") markDispatch({ stage: "dispatch committed", observatoryId: created.observatoryId, observationId: created.id });
  return created;
}

/** What the caller may read, filtered and sorted (newest first unless asked otherwise); keyset-paged on (sort key, id). */
export async function listObservations(options: { deps: Deps; actor: UserActor; filter: ObservationFilter; limit: number; cursor?: string }) {
  const { deps, actor, filter, limit } = options;
  const order = observationOrder(filter.sort);
  const conditions = observationConditions({ actor, filter });
  if (options.cursor) conditions.push(order.after(options.cursor));
  const rows = await deps.db.execute<{ id: string; doc: ObservationDoc; created_at: string; updated_at: string; sort_key: string }>(sql`
    select o.id, o.doc, o.created_at, o.updated_at, ${order.key} as sort_key from observations o
     where ${sql.join(conditions, sql` and `)}
     order by ${order.orderBy}
     limit ${limit + 1}`);
  const page = rows.slice(0, limit);
  return {
    items: await presentObservations({
      db: deps.db,
      observations: page.map(storedFromRow),
    }),
    nextCursor: rows.length > limit ? order.cursor(page.at(-1)!) : null,
  };
}

export async function getObservation(options: { deps: Deps; actor: UserActor; observationId: string }) {
  const { observation } = await loadObservationAccess({ db: options.deps.db, actor: options.actor, observationId: options.observationId });
  return presentOneObservation({ db: options.deps.db, observation });
}

/** The owner or `can_operate` edits an observation while it waits (pending or paused). */
export async function updateObservation(options: { deps: Deps; actor: UserActor; observationId: string; update: ObservationUpdate }) {
  const { deps, actor, observationId, update } = options;
  return inTransaction(deps, async (t) => {
    const { observation, isOwner, canOperate } = await loadObservationAccess({ db: t.tx, actor, observationId, forUpdate: true });
    if (!isOwner && !canOperate) throw new AppError("FORBIDDEN", "Only its owner or an operator of its observatory may change an observation");
    const { status } = observation.doc;
    if (status !== "pending" && status !== "paused")
      throw new AppError("INVALID_TRANSITION", `An observation can be changed only while pending or paused; it is ${status}`);
    const merged = { ...observation.doc, ...update };
    if (update.fixedTimeEnd !== undefined) refuseWindowInThePast({ window: merged, now: t.now() });
    if (update.monitoring !== undefined) refuseEndedCadence({ monitoring: update.monitoring, now: t.now() });
    refuseCadenceOfAnotherType(merged, update);
    if (update.storageDestinationId) await requireStorageDestination({ db: t.tx, projectId: merged.projectId, destinationId: update.storageDestinationId });
    refuseInvalidWindow({ window: merged });
    const isMonitoring = merged.type === "monitoring";
    const updated = await observationsCollection.update(t.tx, observationId, () => ({
      ...merged,
      isMonitoring,
      // A type changed away from monitoring takes its cadence with it.
      monitoring: isMonitoring ? (merged.monitoring ?? null) : null,
    }));
    if (status === "pending") await queueDispatch({ t, observatoryId: observation.doc.observatoryId });
    return presentOneObservation({ db: t.tx, observation: updated! });
  });
}

/** The owner or `can_operate` cancels; a user's cancel always yields `cancelled`, and a running observation's observatory is told. */
export async function cancelObservation(options: { deps: Deps; actor: UserActor; observationId: string; reason?: string }) {
  const { deps, actor, observationId } = options;
  return inTransaction(deps, async (t) => {
    const { observation, isOwner, canOperate } = await loadObservationAccess({ db: t.tx, actor, observationId, forUpdate: true });
    if (!isOwner && !canOperate) throw new AppError("FORBIDDEN", "Only its owner or an operator of its observatory may cancel an observation");
    const moved = await moveObservation({ t, observation, to: "cancelled", actor, reason: options.reason ?? "cancelled by a user" });
    return presentOneObservation({ db: t.tx, observation: moved });
  });
}

/** `can_operate` moves an observation along the transition table (the observatory's own key reports through `reportObservationStatus`). */
export async function changeObservationStatus(options: { deps: Deps; actor: UserActor; observationId: string; status: ObservationStatus; reason?: string }) {
  const { deps, actor, observationId } = options;
  return inTransaction(deps, async (t) => {
    const { observation, canOperate } = await loadObservationAccess({ db: t.tx, actor, observationId, forUpdate: true });
    if (!canOperate) throw new AppError("FORBIDDEN", "This needs can_operate on the observation's observatory");
    const moved = await moveObservation({ t, observation, to: options.status, actor, reason: options.reason ?? null });
    return presentOneObservation({ db: t.tx, observation: moved });
  });
}

/**
 * An observatory reports a status of an observation assigned to it; any other observation does not exist for it. A key
 * reports only the moves a plugin makes (`pluginReportableStatuses`): never assigned, pending, paused or cancelled.
 */
export async function reportObservationStatus(options: {
  deps: Deps;
  observatoryId: string;
  observationId: string;
  status: ObservationStatus;
  reason?: string;
}) {
  const { deps, observatoryId, observationId } = options;
  return inTransaction(deps, async (t) => {
    const observation = await observationsCollection.get(t.tx, observationId, { forUpdate: true });
    if (!observation || !isAtObservatory({ doc: observation.doc, observatoryId })) throw new AppError("NOT_FOUND", "No such observation at this observatory");
    if (!pluginMayReport(options.status))
      throw new AppError(
        "FORBIDDEN_TRANSITION",
        `An observatory key may not move an observation to ${options.status}; it reports only ${pluginReportableStatuses.join(", ")}`,
      );
    const moved = await moveObservation({
      t,
      observation,
      to: options.status,
      actor: { kind: "observatory", id: observatoryId },
      reason: options.reason ?? null,
    });
    return presentOneObservation({ db: t.tx, observation: moved });
  });
}

const historyPositions = {
  asc: keysetCursor({ list: "observation-history", parts: ["instant", "id"] }),
  desc: keysetCursor({ list: "observation-history-newest", parts: ["instant", "id"] }),
};

/**
 * The moves of an observation in pages of `limit`, oldest first (`order: "desc"`: newest first), by the moment each was
 * recorded and then id; `nextCursor` holds the last entry's keys while more remain. A cursor of one order is refused by
 * the other (400 on `cursor`), as is any cursor no page gave.
 */
export async function listObservationHistory(options: {
  deps: Deps;
  actor: UserActor;
  observationId: string;
  limit: number;
  cursor?: string;
  order?: ObservationHistoryOrder;
}) {
  const { deps, actor, observationId, limit } = options;
  const order = options.order ?? "asc";
  const position = historyPositions[order];
  // Who may read it first, as the observatory's history does: to anyone else it does not exist, whatever the cursor.
  const { seesMembers } = await loadObservationAccess({ db: deps.db, actor, observationId });
  const after = options.cursor ? position.decode(options.cursor) : undefined;
  const { observationHistory: history } = tables;
  const [direction, beyond] = order === "asc" ? [asc, sql`>`] : [desc, sql`<`];
  const rows = await deps.db
    .select({ id: history.id, doc: history.doc, cursorKey: instantKey(history.createdAt) })
    .from(history)
    // The row comparison bounds the (observation_id, created_at) index scan; the id only breaks ties within a microsecond.
    .where(
      and(
        eq(history.observationId, observationId),
        after ? sql`(${history.createdAt}, ${history.id}) ${beyond} (${after[0]}::timestamptz, ${after[1]})` : undefined,
      ),
    )
    .orderBy(direction(history.createdAt), direction(history.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  // People are named to whoever may list the project's or the observatory's members, as those lists would name them.
  const userIds = seesMembers ? page.flatMap(({ doc }) => (doc.actor.kind === "user" ? [doc.actor.id] : [])) : [];
  const users = await loadUsersById({ db: deps.db, ids: userIds });
  return {
    items: page.map(({ id, doc }) => ({
      id,
      from: doc.from,
      to: doc.to,
      at: doc.at,
      actor: { ...doc.actor, name: doc.actor.kind === "user" ? (users.get(doc.actor.id)?.doc.name ?? null) : null },
      reason: doc.reason,
      clonedFromId: clonedFromOf(doc),
    })),
    nextCursor: rows.length > limit && last ? position.encode(last.cursorKey, last.id) : null,
  };
}
