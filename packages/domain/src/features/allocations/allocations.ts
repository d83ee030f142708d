import { observatoriesCollection, projectsCollection, type AllocationDoc, type Executor, type ObservationDoc, type ObservatoryDoc } from "@meridian/db";
import { sql } from "drizzle-orm";
import type { UserActor } from "../../platform/actor";
import { recordAudit } from "../audit";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { recordHistory } from "../observatories";
import { estimatedSecondsOf } from "../observations";
import { queueDispatch } from "../observations";
import { requireObservatoryPermission } from "../permissions";
import { loadProjectAccess } from "../projects";
import { inTransaction } from "../../platform/transaction";
import { hoursOf, usedMs } from "../observations";

/** Projects with an allocation at one observatory, at most. */
const MAX_ALLOCATIONS = 500;
/** The period an allocation covers when none is given: from now, six months. */
const DEFAULT_PERIOD_MONTHS = 6;

export interface AllocationInput {
  hours: number;
  periodStart?: string;
  periodEnd?: string;
}

const addMonths = (date: Date, months: number) => {
  const shifted = new Date(date);
  shifted.setUTCMonth(shifted.getUTCMonth() + months);
  return shifted;
};

const presentAllocation = (allocation: AllocationDoc) => ({
  projectId: allocation.projectId,
  hours: allocation.hours,
  periodStart: allocation.periodStart,
  periodEnd: allocation.periodEnd,
});

function periodOf(input: AllocationInput, now: Date) {
  const start = input.periodStart ? new Date(input.periodStart) : now;
  const end = input.periodEnd ? new Date(input.periodEnd) : addMonths(start, DEFAULT_PERIOD_MONTHS);
  if (end <= start)
    throw new AppError("VALIDATION_FAILED", "The period must end after it starts", {
      errors: [{ path: "periodEnd", message: "Must be after periodStart" }],
    });
  return { periodStart: start.toISOString(), periodEnd: end.toISOString() };
}

/**
 * A project the caller may grant time to here: one they can see, or one with observations at this
 * observatory (whose members observe here, though its administrators may see nothing else of it).
 * Any other is 404, as one that does not exist: the allocation list and history name the project.
 */
async function allocatableProject(options: { db: Executor; actor: UserActor; observatoryId: string; projectId: string }) {
  const { db, actor, observatoryId, projectId } = options;
  const project = await projectsCollection.get(db, projectId);
  if (!project) throw new AppError("NOT_FOUND", "No such project");
  const observesHere = await db.execute(sql`
    select 1 from observations where project_id = ${projectId} and candidate_observatory_ids @> array[${observatoryId}]::text[] limit 1`);
  if (observesHere.length === 0) await loadProjectAccess({ db, actor, projectId });
  return project;
}

/** `PUT /observatories/{id}/allocations/{projectId}` (can_admin): grants or changes a project's observing time here. */
export async function putAllocation(options: { deps: Deps; actor: UserActor; observatoryId: string; projectId: string; input: AllocationInput }) {
  const { deps, actor, observatoryId, projectId, input } = options;
  await requireObservatoryPermission({ db: deps.db, actor, observatoryId, permission: "can_admin" });
  return inTransaction(deps, async (t) => {
    const observatory = await observatoriesCollection.get(t.tx, observatoryId, { forUpdate: true });
    if (!observatory) throw new AppError("NOT_FOUND", "No such observatory");
    const project = await allocatableProject({ db: t.tx, actor, observatoryId, projectId });
    const allocations = observatory.doc.allocations ?? [];
    const before = allocations.find((item) => item.projectId === projectId);
    if (!before && allocations.length >= MAX_ALLOCATIONS)
      throw new AppError("CONFLICT", `An observatory holds at most ${MAX_ALLOCATIONS} allocations; remove one first`);
    const allocation: AllocationDoc = { projectId, hours: input.hours, ...periodOf(input, t.now()), updatedAt: t.now().toISOString(), updatedBy: actor.id };
    await observatoriesCollection.update(t.tx, observatoryId, (doc) => ({
      ...doc,
      allocations: [...(doc.allocations ?? []).filter((item) => item.projectId !== projectId), allocation],
    }));
    const after = presentAllocation(allocation);
    await recordHistory({ t, observatoryId, type: "allocation_set", actorId: actor.id, data: { projectName: project.doc.name, ...after } });
    await recordAudit({
      t,
      actor,
      action: before ? "observatory.allocation_updated" : "observatory.allocation_granted",
      target: { kind: "project", id: projectId, name: project.doc.name },
      scope: { kind: "observatory", id: observatoryId, name: observatory.doc.name },
      before: before ? presentAllocation(before) : null,
      after,
    });
    // More time may let a held observation run.
    await queueDispatch({ t, observatoryId });
    return after;
  });
}

/** `DELETE /observatories/{id}/allocations/{projectId}` (can_admin): the project is unlimited here again. */
export async function deleteAllocation(options: { deps: Deps; actor: UserActor; observatoryId: string; projectId: string }) {
  const { deps, actor, observatoryId, projectId } = options;
  await requireObservatoryPermission({ db: deps.db, actor, observatoryId, permission: "can_admin" });
  await inTransaction(deps, async (t) => {
    const observatory = await observatoriesCollection.get(t.tx, observatoryId, { forUpdate: true });
    const before = observatory?.doc.allocations?.find((item) => item.projectId === projectId);
    if (!observatory || !before) throw new AppError("NOT_FOUND", "This project has no allocation at this observatory");
    await observatoriesCollection.update(t.tx, observatoryId, (doc) => ({
      ...doc,
      allocations: (doc.allocations ?? []).filter((item) => item.projectId !== projectId),
    }));
    const project = await projectsCollection.get(t.tx, projectId);
    const projectName = project?.doc.name ?? null;
    await recordHistory({ t, observatoryId, type: "allocation_removed", actorId: actor.id, data: { projectId, projectName } });
    await recordAudit({
      t,
      actor,
      action: "observatory.allocation_removed",
      target: { kind: "project", id: projectId, name: projectName },
      scope: { kind: "observatory", id: observatoryId, name: observatory.doc.name },
      before: presentAllocation(before),
    });
    await queueDispatch({ t, observatoryId });
  });
}

/** `GET /observatories/{id}/allocations` (can_view): each allocation with what its project used in the period so far. */
export async function listAllocations(options: { deps: Deps; actor: UserActor; observatoryId: string }) {
  const { deps, actor, observatoryId } = options;
  await requireObservatoryPermission({ db: deps.db, actor, observatoryId, permission: "can_view" });
  const observatory = await observatoriesCollection.get(deps.db, observatoryId);
  if (!observatory) throw new AppError("NOT_FOUND", "No such observatory");
  const allocations = observatory.doc.allocations ?? [];
  const names = await projectNames(
    deps.db,
    allocations.map((item) => item.projectId),
  );
  const now = deps.now();
  const items = [];
  for (const allocation of allocations) {
    const used = await usedMs({
      db: deps.db,
      observatoryId,
      projectId: allocation.projectId,
      from: new Date(allocation.periodStart),
      to: new Date(allocation.periodEnd),
      now,
    });
    items.push({ ...presentAllocation(allocation), projectName: names.get(allocation.projectId) ?? null, usedHours: hoursOf(used) });
  }
  items.sort((a, b) => (a.projectName ?? "").localeCompare(b.projectName ?? "") || a.projectId.localeCompare(b.projectId));
  return { items };
}

async function projectNames(db: Executor, projectIds: string[]) {
  if (projectIds.length === 0) return new Map<string, string>();
  const rows = await db.execute<{ id: string; name: string }>(sql`select id, doc->>'name' as name from projects where id in ${projectIds}`);
  return new Map(rows.map((row) => [row.id, row.name]));
}

/**
 * Waiting observations' estimates count as pending time; what runs now is being charged already. One with candidates
 * counts at each of them, with each one's settings: it may run at any.
 */
async function pendingSecondsByObservatory(db: Executor, projectId: string, observatories: Map<string, ObservatoryDoc>) {
  const rows = await db.execute<{ candidate_observatory_ids: string[]; doc: ObservationDoc }>(sql`
    select candidate_observatory_ids, doc from observations where project_id = ${projectId} and status in ('pending', 'paused') limit 5000`);
  const seconds = new Map<string, number>();
  for (const row of rows)
    for (const observatoryId of row.candidate_observatory_ids) {
      const observatory = observatories.get(observatoryId);
      if (!observatory) continue;
      seconds.set(observatoryId, (seconds.get(observatoryId) ?? 0) + estimatedSecondsOf({ doc: row.doc, observatory }));
    }
  return seconds;
}

/**
 * `GET /projects/{id}/usage` (project members): at every observatory where the project has
 * observations or an allocation, its allocated hours (null: unlimited), the hours used (within
 * the allocation's period; all of them without one) and the hours its waiting observations need.
 */
export async function getProjectUsage(options: { deps: Deps; actor: UserActor; projectId: string }) {
  const { deps, actor, projectId } = options;
  await loadProjectAccess({ db: deps.db, actor, projectId });
  const rows = await deps.db.execute<{ id: string; doc: ObservatoryDoc }>(sql`
    select id, doc from observatories
     where id in (select distinct unnest(candidate_observatory_ids) from observations where project_id = ${projectId})
        or doc->'allocations' @> ${JSON.stringify([{ projectId }])}::jsonb
     order by doc->>'name', id`);
  const observatories = new Map(rows.map((row) => [row.id, row.doc]));
  const pending = await pendingSecondsByObservatory(deps.db, projectId, observatories);
  const now = deps.now();
  const items = [];
  for (const row of rows) {
    const allocation = row.doc.allocations?.find((item) => item.projectId === projectId);
    const from = allocation ? new Date(allocation.periodStart) : new Date(0);
    const to = allocation ? new Date(allocation.periodEnd) : new Date("9999-12-31T00:00:00Z");
    const used = await usedMs({ db: deps.db, observatoryId: row.id, projectId, from, to, now });
    items.push({
      observatoryId: row.id,
      observatoryName: row.doc.name,
      allocatedHours: allocation?.hours ?? null,
      usedHours: hoursOf(used),
      pendingHours: hoursOf((pending.get(row.id) ?? 0) * 1000),
      periodStart: allocation?.periodStart ?? null,
      periodEnd: allocation?.periodEnd ?? null,
    });
  }
  return { items };
}
