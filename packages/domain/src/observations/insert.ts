import { observationsCollection, tables, type ObservationDoc } from "@meridian/db";
import { and, count, eq, sql } from "drizzle-orm";
import type { UserActor } from "../actor";
import { AppError, fieldError } from "../errors";
import { publishUserEvent } from "../events/publish";
import type { InTransaction } from "../transaction";
import { observationReaderIds } from "./access";
import { queueDispatch, recordHistory } from "./transitions";

/** What a person chooses for a new observation; the rest (owner, status, times) the server sets. */
export type NewObservationFields = Pick<
  ObservationDoc,
  "name" | "projectId" | "observatoryId" | "type" | "priority" | "targets" | "constraints" | "fixedTimeStart" | "fixedTimeEnd" | "bypassDarkness"
> & { notifications?: ObservationDoc["notifications"]; monitoring?: ObservationDoc["monitoring"]; storageDestinationId?: string | null };

const defaultNotifications = (): ObservationDoc["notifications"] => ({
  email: true,
  push: true,
  states: ["assigned", "in_progress", "suspended", "completed", "failed", "aborted", "cancelled"],
});

/** A fixed-time window that has already closed could never run: refused, rather than pending for ever. */
export function refuseWindowInThePast(options: { window: { fixedTimeEnd: string | null }; now: Date }) {
  const { window, now } = options;
  if (window.fixedTimeEnd && new Date(window.fixedTimeEnd) <= now)
    throw new AppError("VALIDATION_FAILED", "The observation's window has already closed", {
      errors: [fieldError({ path: "fixedTimeEnd", predicate: `lies in the past (now is ${now.toISOString()}): the observation could never run` })],
    });
}

/**
 * Unfinished observations (in any status a later move can leave) one project may hold: the next
 * creation or clone is 409 CONFLICT until one is cancelled or ends. Finished ones do not count.
 */
export const MAX_UNFINISHED_OBSERVATIONS = 10_000;

/** What `insertObservation` asks for: the project's room, counted under its lock in this transaction. */
export type RoomForObservation = { readonly projectId: string } & { readonly __room: unique symbol };

/**
 * Refuses one more unfinished observation in the project past MAX_UNFINISHED_OBSERVATIONS. A
 * creation starts it with its other reads, so the lock and the count cost no round trip of their own. The
 * project's row is held FOR SHARE by every creation (`holdProject`), which two of them hold at
 * once, so it cannot order their counts, and upgrading it to FOR UPDATE would deadlock two
 * creations that each wait for the other's share. A transaction lock on the project's name makes
 * the creations into one project count one after another instead, from the count to the commit,
 * and leaves the row's locks (archive, deletion, member additions) as they were. It may come
 * before or after the project's share (both go out together): only creations take it, and what
 * waits on a project's row (FOR UPDATE) never takes it, so no two wait for each other in turn.
 */
export async function requireRoomForObservation(options: { t: Pick<InTransaction, "tx">; projectId: string }): Promise<RoomForObservation> {
  const { t, projectId } = options;
  await t.tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`meridian:observations-of:${projectId}`}))`);
  const { observations } = tables;
  const [row] = await t.tx
    .select({ count: count() })
    .from(observations)
    .where(and(eq(observations.projectId, projectId), tables.unfinishedObservationStatus));
  if ((row?.count ?? 0) >= MAX_UNFINISHED_OBSERVATIONS)
    throw new AppError(
      "CONFLICT",
      `The project holds ${MAX_UNFINISHED_OBSERVATIONS} unfinished observations, the most one may; cancel one or let one finish first`,
    );
  return { projectId } as RoomForObservation;
}

/**
 * Writes a new pending observation owned by the actor, its first history entry (`reason` says
 * where it came from, e.g. a clone's source), tells its readers and asks for a dispatch, once the
 * project has room for it. The caller has checked who may create it, holds the observatory against
 * removal, holds the project (`holdProject`) and has counted its room (`requireRoomForObservation`).
 */
export async function insertObservation(options: {
  t: InTransaction;
  actor: UserActor;
  fields: NewObservationFields;
  room: RoomForObservation;
  reason: string | null;
}) {
  const { t, actor, fields } = options;
  if (options.room.projectId !== fields.projectId) throw new Error("The room was counted in another project");
  const now = t.now().toISOString();
  const id = observationsCollection.newId();
  // The observation, its first history entry, its readers and its dispatch go out together, in one round trip.
  const [stored, , readers] = await Promise.all([
    observationsCollection.insert(
      t.tx,
      {
        name: fields.name,
        projectId: fields.projectId,
        observatoryId: fields.observatoryId,
        ownerId: actor.id,
        type: fields.type,
        priority: fields.priority,
        targets: fields.targets,
        constraints: fields.constraints,
        fixedTimeStart: fields.fixedTimeStart,
        fixedTimeEnd: fields.fixedTimeEnd,
        bypassDarkness: fields.bypassDarkness,
        notifications: fields.notifications ?? defaultNotifications(),
        status: "pending",
        statusReason: null,
        statusChangedAt: now,
        isMonitoring: fields.type === "monitoring",
        monitoring: fields.monitoring,
        storageDestinationId: fields.storageDestinationId ?? null,
        staleReportedAt: null,
      },
      id,
    ),
    recordHistory({ t, observationId: id, from: null, to: "pending", at: now, actor, reason: options.reason }),
    observationReaderIds({ db: t.tx, doc: { ownerId: actor.id, projectId: fields.projectId, observatoryId: fields.observatoryId } }),
    queueDispatch({ t, observatoryId: fields.observatoryId }),
  ]);
  t.alongside(
    publishUserEvent({
      t,
      userIds: readers,
      event: { type: "observation.status_changed", data: { id, status: "pending", previousStatus: null, at: now } },
    }),
  );
  return stored;
}
