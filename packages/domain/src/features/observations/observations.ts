import { requireStorageDestination } from "../organizations";
import { candidateObservatoryIdsOf, observationsCollection, storedFromRow, tables, usersCollection, type ObservationDoc } from "@meridian/db";
import { pluginMayReport, pluginReportableStatuses, type ObservationStatus } from "@meridian/rules";
import { monitoringProblems } from "@meridian/rules/observations";
import { and, asc, desc, eq, sql } from "drizzle-orm";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { AppError, fieldError } from "../../platform/errors";
import { loadProjectAccess } from "../projects";
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
import { moveObservation, queueDispatchAtEach } from "./transitions";
import { inTransaction } from "../../platform/transaction";
import { markDispatch } from "./dispatch-trace";
import { observatoryFilters, refuseUnavailableFilters } from "./filter-check";
import { holdIdleObservatory, mayStartAtIdle } from "./dispatch";
import { instantKey, keysetCursor } from "../../platform/validation/keyset-cursor";
import { holdLiveObservatories, requireObservingAtEach, whereItRuns } from "./candidates";

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

/**
 * `can_observe` on the observatory (or on each candidate) and membership of an active project; the caller owns the new
 * observation. One with candidates is never assigned in its own transaction: a dispatch at each candidate judges it.
 */
export async function createObservation(options: { deps: Deps; actor: UserActor; input: ObservationCreate }) {
  const { deps, actor } = options;
  const { observatoryId: single, candidateObservatoryIds: several, ...rest } = options.input;
  const where = whereItRuns({ observatoryId: single, candidateObservatoryIds: several })!;
  const fields = { ...rest, ...where };
  const [first] = where.candidateObservatoryIds as [string];
  markDispatch({ stage: "request started", observatoryId: first });
  const created = await inTransaction(deps, async (t) => {
    // The reads go out together (one round trip); their refusals are judged in this order, whichever came back first.
    const [permission, projectAccess, destination, live, held, timings, idleAt, owner, readers, filters] = await Promise.allSettled([
      requireObservingAtEach({ db: t.tx, actor, observatoryIds: where.candidateObservatoryIds }),
      loadProjectAccess({ db: t.tx, actor, projectId: fields.projectId }),
      requireStorageDestination({ db: t.tx, projectId: fields.projectId, destinationId: fields.storageDestinationId }),
      // A removal that committed since the permission was granted cancelled what waits there: nothing new goes there.
      holdLiveObservatories({ t, observatoryIds: where.candidateObservatoryIds }),
      // The project's status under its lock (after the observatory's, as a clone takes them), not as read above:
      // archiving it waits for this creation, and a deletion committed meanwhile leaves it missing. Its cap is
      // counted under the same lock.
      holdProjectForObservation({ t, projectId: fields.projectId }),
      // What the answer's estimate follows, read now rather than after the writes.
      observationTimings({ db: t.tx, observatoryIds: [first] }),
      // Last, after the observatory's key share above: never waits.
      where.observatoryId === null ? Promise.resolve(null) : holdIdleObservatory({ t, observatoryId: where.observatoryId }),
      // The owner's notice of an assignment at once needs their preferences.
      usersCollection.get(t.tx, actor.id),
      // Who hears of it, read now so its events go out with its writes.
      observationReaderIds({ db: t.tx, doc: { ownerId: actor.id, ...fields } }),
      // The filters its observatory (each candidate) reported, which its exposures must be among.
      observatoryFilters({ db: t.tx, observatoryIds: where.candidateObservatoryIds }),
    ]);
    settled(permission);
    settled(projectAccess);
    const { project, room } = settled(held);
    if (!project) throw new AppError("NOT_FOUND", "No such project");
    const { status } = project;
    if (status !== "active") throw new AppError("PROJECT_NOT_ACTIVE", `The project is ${status}; observations go into active projects`);
    refuseWindowInThePast({ window: fields, now: t.now() });
    refuseEndedCadence({ monitoring: fields.monitoring, now: t.now() });
    settled(destination);
    if (!settled(live)) throw new AppError("NOT_FOUND", "No such observatory");
    refuseUnavailableFilters({ targets: fields.targets, observatories: settled(filters) });
    const idle = settled(idleAt);
    // Judged before it is written, as the only observation waiting there: assigned at once, it needs no dispatch job.
    const now = t.now();
    const candidate = { id: "", doc: newObservationDoc({ actor, fields, now: now.toISOString() }), createdAt: now, updatedAt: now };
    const assignNow = idle !== null && (await mayStartAtIdle({ t, idle, candidate }));
    const inserting = insertObservation({
      t,
      actor,
      fields,
      room: requireRoom(room),
      reason: null,
      readers: settled(readers),
      ...(assignNow ? { assigned: { owner: settled(owner) ?? null, idle } } : {}),
    });
    // Its statements are sent: the transaction's closing count goes with them, not in a round trip after.
    t.writesSent();
    return presentObservation({ observation: await inserting, timing: settled(timings)(first), progress: progressBeforeFrames(fields.targets) });
  });
  const at = created.observatoryId ?? first;
  markDispatch({ stage: "request committed", observatoryId: at, observationId: created.id });
  if (created.status === "assigned") markDispatch({ stage: "dispatch committed", observatoryId: at, observationId: created.id });
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

/**
 * The owner or `can_operate` edits an observation while it waits (pending or paused). `observatoryId` or
 * `candidateObservatoryIds` replace where it may run (can_observe on each, as a creation needs).
 */
export async function updateObservation(options: { deps: Deps; actor: UserActor; observationId: string; update: ObservationUpdate }) {
  const { deps, actor, observationId, update } = options;
  return inTransaction(deps, async (t) => {
    const { observation, isOwner, canOperate } = await loadObservationAccess({ db: t.tx, actor, observationId, forUpdate: true });
    if (!isOwner && !canOperate) throw new AppError("FORBIDDEN", "Only its owner or an operator of its observatory may change an observation");
    const { status } = observation.doc;
    if (status !== "pending" && status !== "paused")
      throw new AppError("INVALID_TRANSITION", `An observation can be changed only while pending or paused; it is ${status}`);
    const { observatoryId: single, candidateObservatoryIds: several, ...changes } = update;
    // Where it runs, when the edit names it: every observatory named is judged as a creation judges it.
    const where = whereItRuns({ observatoryId: single, candidateObservatoryIds: several });
    if (where) {
      await requireObservingAtEach({ db: t.tx, actor, observatoryIds: where.candidateObservatoryIds });
      if (!(await holdLiveObservatories({ t, observatoryIds: where.candidateObservatoryIds }))) throw new AppError("NOT_FOUND", "No such observatory");
    }
    const merged = { ...observation.doc, ...changes, ...where };
    if (update.fixedTimeEnd !== undefined) refuseWindowInThePast({ window: merged, now: t.now() });
    if (update.monitoring !== undefined) refuseEndedCadence({ monitoring: update.monitoring, now: t.now() });
    refuseCadenceOfAnotherType(merged, update);
    if (update.storageDestinationId) await requireStorageDestination({ db: t.tx, projectId: merged.projectId, destinationId: update.storageDestinationId });
    // New exposures, or its exposures at the observatories newly named, must be among the filters its observatory (one of its
    // candidates) reports; an edit that leaves both is not judged again.
    if (update.targets || where)
      refuseUnavailableFilters({
        targets: merged.targets,
        observatories: await observatoryFilters({ db: t.tx, observatoryIds: candidateObservatoryIdsOf(merged) }),
      });
    refuseInvalidWindow({ window: merged });
    const isMonitoring = merged.type === "monitoring";
    const updated = await observationsCollection.update(t.tx, observationId, () => ({
      ...merged,
      isMonitoring,
      // A type changed away from monitoring takes its cadence with it.
      monitoring: isMonitoring ? (merged.monitoring ?? null) : null,
    }));
    if (status === "pending") await queueDispatchAtEach({ t, observatoryIds: candidateObservatoryIdsOf(updated!.doc) });
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
    if (!observation || observation.doc.observatoryId !== observatoryId) throw new AppError("NOT_FOUND", "No such observation at this observatory");
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
