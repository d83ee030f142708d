import { observationsCollection, tables, type ObservationDoc, type ProjectDoc, type StoredDocument, type UserDoc } from "@meridian/db";
import { and, count, eq } from "drizzle-orm";
import type { Actor, UserActor } from "../../platform/actor";
import { AppError, fieldError } from "../../platform/errors";
import { fixedTimeProblems } from "@meridian/rules/observations";
import { behindStatementsMade, type InTransaction } from "../../platform/transaction";
import { holdProject } from "../projects";
import { tellIdleObservatory, type IdleObservatory } from "./dispatch";
import { enterObservation, newObservationStatus } from "./transitions";
import type { WhereItRuns } from "./candidates";

/** What a person chooses for a new observation; the rest (owner, status, times) the server sets. */
export type NewObservationFields = Pick<
  ObservationDoc,
  "name" | "projectId" | "type" | "priority" | "targets" | "constraints" | "fixedTimeStart" | "fixedTimeEnd" | "bypassDarkness"
> &
  WhereItRuns & {
    notifications?: ObservationDoc["notifications"];
    monitoring?: ObservationDoc["monitoring"];
    storageDestinationId?: string | null;
    /** A repeat of an observation's missing exposures, which the server makes (frames/repeat-rejected.ts): what it repeats, and how deep. */
    repeat?: { of: string; number: number };
  };

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
 * The shared window rules (`fixedTimeProblems`: the end after the start, a fixed-time start, a
 * time-based bound) judged on the observation a creation, clone or edit would leave; 400 with each
 * problem at its field. A bound the stored document lacks counts as none.
 */
export function refuseInvalidWindow(options: { window: { type: string; fixedTimeStart?: string | null; fixedTimeEnd?: string | null } }) {
  const { type, fixedTimeStart = null, fixedTimeEnd = null } = options.window;
  const problems = fixedTimeProblems({ type, fixedTimeStart, fixedTimeEnd });
  if (problems.length > 0)
    throw new AppError("VALIDATION_FAILED", "The observation's time window is not valid", {
      errors: problems.map((problem) => fieldError({ path: problem.path, predicate: problem.predicate })),
    });
}

/**
 * Unfinished observations (in any status a later move can leave) one project may hold: the next
 * creation or clone is 409 CONFLICT until one is cancelled or ends. Finished ones do not count.
 */
export const MAX_UNFINISHED_OBSERVATIONS = 10_000;

/** What `insertObservation` asks for: the project's room, counted under its row's lock in this transaction. */
export type RoomForObservation = { readonly projectId: string } & { readonly __room: unique symbol };

/**
 * Locks the project's row for an observation's creation and counts its unfinished observations:
 * the project as it is now (null when it is gone), and the room for one more, or null when it
 * holds MAX_UNFINISHED_OBSERVATIONS already (the caller judges the project first). The lock is
 * FOR NO KEY UPDATE, which conflicts with itself: creations into one project count one after
 * another, from the count to the commit, and an archive or a deletion waits for them as a FOR
 * SHARE made it wait. One lock only, so nothing a creation holds is waited for by another one
 * that holds what it waits for. The count is sent with the lock, right behind it: a connection
 * runs its statements one after the other, so it counts, with a snapshot of its own, once the lock
 * is held, and costs no round trip of its own (a statement of its own, since a subquery of the
 * lock's would count with the snapshot taken before the lock was waited for).
 */
export async function holdProjectForObservation(options: {
  t: Pick<InTransaction, "tx">;
  projectId: string;
}): Promise<{ project: ProjectDoc | null; room: RoomForObservation | null }> {
  const { t, projectId } = options;
  const { observations } = tables;
  const locking = holdProject({ t, projectId, mode: "no key update" });
  const counting = behindStatementsMade(() =>
    t.tx
      .select({ count: count() })
      .from(observations)
      .where(and(eq(observations.projectId, projectId), tables.unfinishedObservationStatus)),
  );
  const [project, [row]] = await Promise.all([locking, counting]);
  if (!project) return { project, room: null };
  return { project, room: (row?.count ?? 0) < MAX_UNFINISHED_OBSERVATIONS ? ({ projectId } as RoomForObservation) : null };
}

/** The room `holdProjectForObservation` counted, or 409 CONFLICT when the project is full. */
export function requireRoom(room: RoomForObservation | null): RoomForObservation {
  if (room) return room;
  throw new AppError(
    "CONFLICT",
    `The project holds ${MAX_UNFINISHED_OBSERVATIONS} unfinished observations, the most one may; cancel one or let one finish first`,
  );
}

/** A new pending observation's document, as `insertObservation` writes it. */
export function newObservationDoc(options: { actor: UserActor; fields: NewObservationFields; now: string }): ObservationDoc {
  const { actor, fields, now } = options;
  return {
    name: fields.name,
    projectId: fields.projectId,
    observatoryId: fields.observatoryId,
    candidateObservatoryIds: fields.candidateObservatoryIds,
    ownerId: actor.id,
    type: fields.type,
    priority: fields.priority,
    targets: fields.targets,
    constraints: fields.constraints,
    fixedTimeStart: fields.fixedTimeStart,
    fixedTimeEnd: fields.fixedTimeEnd,
    bypassDarkness: fields.bypassDarkness,
    notifications: fields.notifications ?? defaultNotifications(),
    ...newObservationStatus(now),
    isMonitoring: fields.type === "monitoring",
    monitoring: fields.monitoring,
    storageDestinationId: fields.storageDestinationId ?? null,
    staleReportedAt: null,
    ...(fields.repeat ? { repeatOf: fields.repeat.of, repeatNumber: fields.repeat.number } : {}),
  };
}

/**
 * Writes a new pending observation owned by the actor, its first history entry (`reason` says
 * where it came from, e.g. a clone's source), tells its `readers` (read by the caller with its
 * checks: `observationReaderIds` on the fields) and asks for a dispatch, once the project has room
 * for it. The caller has checked who may create it, holds the observatory against removal, and has
 * held the project and counted its room (`holdProjectForObservation`).
 * `assigned`: the caller holds its observatory idle and found it may start there now (dispatch.ts,
 * `mayStartAtIdle`); it is written assigned by dispatch (`enterObservation`, with both moves in its history, their
 * events and the notice to its owner, the actor, as the caller read them in this transaction), the
 * observatory is told (`assign`), and no dispatch is asked for.
 * Every statement is sent before the first answer is awaited (one round trip), so a caller with
 * nothing more to write may say so (`t.writesSent()`) before awaiting this.
 */
export async function insertObservation(options: {
  t: InTransaction;
  actor: UserActor;
  fields: NewObservationFields;
  room: RoomForObservation;
  reason: string | null;
  readers: string[];
  assigned?: { owner: StoredDocument<UserDoc> | null; idle: IdleObservatory };
  /** Who its first history entry names, when the actor (its owner) did not ask for it: the server, for a repeat. */
  recordedBy?: Actor;
}): Promise<StoredDocument<ObservationDoc>> {
  const { t, actor, fields, assigned, readers } = options;
  if (options.room.projectId !== fields.projectId) throw new Error("The room was counted in another project");
  const id = observationsCollection.newId();
  const doc = newObservationDoc({ actor, fields, now: t.now().toISOString() });
  // The row's creation time is the transaction's start, which the caller read with the observatory's lock.
  const tell = (idle: IdleObservatory) => (written: ObservationDoc) =>
    tellIdleObservatory({ t, idle, observation: { id, doc: written, createdAt: idle.heldAt, updatedAt: idle.heldAt } });
  const assign = assigned ? { owner: assigned.owner, tell: tell(assigned.idle) } : undefined;
  return enterObservation({ t, id, doc, actor: options.recordedBy ?? actor, reason: options.reason, readers, ...(assign ? { assign } : {}) });
}
