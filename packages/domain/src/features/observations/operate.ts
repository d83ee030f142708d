import { requireStorageDestination } from "../organizations";
import { observationPrioritySchema } from "@meridian/rules/observations";
import { z } from "zod";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { AppError, fieldError, isAppError } from "../../platform/errors";
import { resolveObservatoryAccess } from "../permissions";
import { loadProjectAccess } from "../projects";
import { inTransaction } from "../../platform/transaction";
import { withoutControlCharacters } from "../users";
import { loadObservationAccess, observationReaderIds } from "./access";
import { cloneReason } from "./clone-reason";
import { observatoryFilters, refuseUnavailableFilters } from "./filter-check";
import { holdLiveObservatories, requireObservingAtEach, whereItRuns } from "./candidates";
import { candidateObservatoryIdsOf, hasCandidates } from "@meridian/db";
import { holdProjectForObservation, insertObservation, refuseInvalidWindow, refuseWindowInThePast, requireRoom, type NewObservationFields } from "./insert";
import { presentOneObservation } from "./timings";
import type { ObservationUpdate } from "./schemas";
import { moveObservation } from "./transitions";

export const observationPauseSchema = z
  .strictObject({ reason: withoutControlCharacters(z.string().trim().min(1).max(1000)).optional() })
  .meta({ id: "ObservationPause" });

export const observationCloneQuerySchema = z.object({
  priority: z.coerce.number().pipe(observationPrioritySchema).optional().describe("The clone's priority (1 to 10), as `priority` in the body"),
});

/**
 * Pause (pending → paused) or resume (paused → pending): the owner or `can_operate`, as for a
 * cancel. Anything but the one status each starts from is 409 INVALID_TRANSITION, though the
 * table lets an assigned observation go back to pending (that is the connection's move, not a resume).
 */
async function pauseOrResume(options: { deps: Deps; actor: UserActor; observationId: string; to: "paused" | "pending"; reason?: string }) {
  const { deps, actor, observationId, to } = options;
  const from = to === "paused" ? "pending" : "paused";
  const verb = to === "paused" ? "pause" : "resume";
  return inTransaction(deps, async (t) => {
    const { observation, isOwner, canOperate } = await loadObservationAccess({ db: t.tx, actor, observationId, forUpdate: true });
    if (!isOwner && !canOperate) throw new AppError("FORBIDDEN", `Only its owner or an operator of its observatory may ${verb} an observation`);
    const { status } = observation.doc;
    if (status !== from)
      throw new AppError("INVALID_TRANSITION", `Only a ${from} observation can be ${to === "paused" ? "paused" : "resumed"}; it is ${status}`);
    return presentOneObservation({ db: t.tx, observation: await moveObservation({ t, observation, to, actor, reason: options.reason ?? null }) });
  });
}

export const pauseObservation = (options: { deps: Deps; actor: UserActor; observationId: string; reason?: string }) =>
  pauseOrResume({ ...options, to: "paused" });

export const resumeObservation = (options: { deps: Deps; actor: UserActor; observationId: string; reason?: string }) =>
  pauseOrResume({ ...options, to: "pending" });

/** Project membership as creating needs it; a reader who is not a member is refused (403), not told the project is missing. */
async function requireProjectForClone(options: Parameters<typeof loadProjectAccess>[0]) {
  const access = await loadProjectAccess(options).catch((error: unknown) => {
    if (isAppError(error) && error.code === "NOT_FOUND") throw new AppError("FORBIDDEN", "Cloning an observation needs membership of its project");
    throw error;
  });
  const { status } = access.project.doc;
  if (status !== "active") throw new AppError("PROJECT_NOT_ACTIVE", `The project is ${status}; observations go into active projects`);
}

/**
 * A new pending observation with the fields of one the caller may read, owned by the caller, in
 * the same project and at the same observatory or candidates: so the caller must be allowed to create it there
 * (`can_observe` on each and project membership, 403 otherwise; an inactive project 409
 * PROJECT_NOT_ACTIVE; a removed observatory among them 409 OBSERVATORY_REMOVED). Overrides naming where it runs are
 * judged as a creation's. `overrides` are what `PUT`
 * takes; `priority` (the query's) stands for the body's. Its history starts "cloned from <id>".
 */
export async function cloneObservation(options: { deps: Deps; actor: UserActor; observationId: string; overrides: ObservationUpdate; priority?: number }) {
  const { deps, actor, observationId, overrides } = options;
  if (options.priority !== undefined && overrides.priority !== undefined)
    throw new AppError("VALIDATION_FAILED", "Give the priority once: in the query or in the body", {
      errors: [fieldError({ path: "priority", predicate: "is given both in the query and in the body" })],
    });
  const { observatoryId: single, candidateObservatoryIds: several, ...changes } = overrides;
  const movedTo = whereItRuns({ observatoryId: single, candidateObservatoryIds: several });
  return inTransaction(deps, async (t) => {
    const { observation } = await loadObservationAccess({ db: t.tx, actor, observationId });
    const source = observation.doc;
    // Where it runs: the source's observatory or candidates (each judged, removed ones too), or what the body names instead,
    // judged as a creation judges it.
    const where = movedTo ?? { observatoryId: hasCandidates(source) ? null : source.observatoryId, candidateObservatoryIds: candidateObservatoryIdsOf(source) };
    const observatoryIds = where.candidateObservatoryIds;
    if (movedTo) await requireObservingAtEach({ db: t.tx, actor, observatoryIds });
    else {
      const access = await resolveObservatoryAccess({ db: t.tx, userId: actor.id, isServerAdmin: actor.isServerAdmin, observatoryIds, includeRemoved: true });
      if (!observatoryIds.every((observatoryId) => access.get(observatoryId)?.can_observe))
        throw new AppError(
          "FORBIDDEN",
          `Cloning an observation needs can_observe on ${observatoryIds.length > 1 ? "each of its candidate observatories" : "its observatory"}`,
        );
    }
    await requireProjectForClone({ db: t.tx, actor, projectId: source.projectId });
    if (!(await holdLiveObservatories({ t, observatoryIds }))) {
      if (movedTo) throw new AppError("NOT_FOUND", "No such observatory");
      throw new AppError("OBSERVATORY_REMOVED", "An observatory the observation may run at was removed; a clone could never run there");
    }
    // Judged again under the project's lock: archiving it waits for the clone, and a deletion committed since is 404.
    const { project, room } = await holdProjectForObservation({ t, projectId: source.projectId });
    if (!project) throw new AppError("NOT_FOUND", "No such project");
    const { status } = project;
    if (status !== "active") throw new AppError("PROJECT_NOT_ACTIVE", `The project is ${status}; observations go into active projects`);
    const fields: NewObservationFields = {
      name: source.name,
      projectId: source.projectId,
      type: source.type,
      priority: source.priority,
      targets: source.targets,
      constraints: source.constraints,
      fixedTimeStart: source.fixedTimeStart,
      fixedTimeEnd: source.fixedTimeEnd,
      bypassDarkness: source.bypassDarkness,
      notifications: source.notifications,
      // The cadence goes with the copy; the runs done do not (a clone starts its own series).
      monitoring: source.monitoring,
      storageDestinationId: source.storageDestinationId ?? null,
      ...changes,
      ...where,
      ...(options.priority === undefined ? {} : { priority: options.priority }),
    };
    const [readers, , observatories] = await Promise.all([
      observationReaderIds({ db: t.tx, doc: { ownerId: actor.id, ...fields } }),
      requireStorageDestination({ db: t.tx, projectId: fields.projectId, destinationId: fields.storageDestinationId }),
      observatoryFilters({ db: t.tx, observatoryIds }),
    ]);
    // A clone is a new submission: its exposures, copied or overridden, must be among the filters its observatory reports now.
    refuseUnavailableFilters({ targets: fields.targets, observatories });
    refuseInvalidWindow({ window: fields });
    refuseWindowInThePast({ window: fields, now: t.now() });
    if (fields.type !== "monitoring") fields.monitoring = undefined;
    return presentOneObservation({
      db: t.tx,
      observation: await insertObservation({ t, actor, fields, room: requireRoom(room), reason: cloneReason(observation.id), readers }),
    });
  });
}
