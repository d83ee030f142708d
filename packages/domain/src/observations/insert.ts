import { observationsCollection, type ObservationDoc } from "@meridian/db";
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
 * Writes a new pending observation owned by the actor, its first history entry (`reason` says
 * where it came from, e.g. a clone's source), tells its readers and asks for a dispatch. The
 * caller has checked who may create it and holds the observatory against removal.
 */
export async function insertObservation(options: { t: InTransaction; actor: UserActor; fields: NewObservationFields; reason: string | null }) {
  const { t, actor, fields } = options;
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
