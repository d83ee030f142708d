import { candidateObservatoryIdsOf, observationsCollection, type Executor, type ObservationDoc, type StoredDocument } from "@meridian/db";
import { sql } from "drizzle-orm";
import type { UserActor } from "../../platform/actor";
import { AppError } from "../../platform/errors";
import { observatoryViewerIds, resolveObservatoryAccess, viewableObservatoryIds } from "../permissions";

export interface ObservationAccess {
  observation: StoredDocument<ObservationDoc>;
  isOwner: boolean;
  /**
   * `can_operate` on the observatory it runs at (server admins have it everywhere): false while one with candidates waits
   * unassigned (its `observatoryId` is null), when only its owner may act on it.
   */
  canOperate: boolean;
  /** May list its project's members or its observatory's (a project member or an observatory viewer): may see who acted on it. */
  seesMembers: boolean;
}

/**
 * Who may read an observation: its owner, the members (and owner) of its project, and whoever
 * can view its observatory or any of its candidates. Anyone else is told it does not exist (404). `forUpdate` locks the
 * row for the caller's transaction, so the answer holds until it commits.
 */
export async function loadObservationAccess(options: { db: Executor; actor: UserActor; observationId: string; forUpdate?: boolean }) {
  const { db, actor, observationId } = options;
  const observation = await observationsCollection.get(db, observationId, { forUpdate: options.forUpdate });
  if (!observation) throw new AppError("NOT_FOUND", "No such observation");
  const { doc } = observation;
  const isOwner = doc.ownerId === actor.id;
  // A removed observatory's observations keep the readers they had (its members are kept for this).
  const candidates = candidateObservatoryIdsOf(doc);
  const access = await resolveObservatoryAccess({ db, userId: actor.id, isServerAdmin: actor.isServerAdmin, observatoryIds: candidates, includeRemoved: true });
  const viewsACandidate = candidates.some((observatoryId) => access.get(observatoryId)?.can_view);
  const seesMembers = viewsACandidate || (await isProjectMember(db, doc.projectId, actor.id));
  if (!isOwner && !seesMembers) throw new AppError("NOT_FOUND", "No such observation");
  const canOperate = doc.observatoryId !== null && Boolean(access.get(doc.observatoryId)?.can_operate);
  return { observation, isOwner, canOperate, seesMembers } satisfies ObservationAccess;
}

async function isProjectMember(db: Executor, projectId: string, userId: string): Promise<boolean> {
  const [row] = await db.execute<{ member: boolean }>(sql`
    select exists (select 1 from projects p where p.id = ${projectId} and p.owner_id = ${userId})
        or exists (select 1 from project_members m where m.project_id = ${projectId} and m.user_id = ${userId}) as member`);
  return Boolean(row?.member);
}

/** Everyone who may read the observation (server admins aside): the audience of its live updates. */
export async function observationReaderIds(options: {
  db: Executor;
  doc: Pick<ObservationDoc, "ownerId" | "projectId" | "observatoryId" | "candidateObservatoryIds">;
}): Promise<string[]> {
  const { db, doc } = options;
  const [members, ...viewers] = await Promise.all([
    db.execute<{ user_id: string }>(sql`
      select p.owner_id as user_id from projects p where p.id = ${doc.projectId}
      union select m.user_id from project_members m where m.project_id = ${doc.projectId}`),
    ...candidateObservatoryIdsOf(doc).map((observatoryId) => observatoryViewerIds({ db, observatoryId })),
  ]);
  return [...new Set([doc.ownerId, ...members.map((row) => row.user_id), ...viewers.flat()])];
}

/**
 * The SQL condition "the user may read observation `o`", for lists. Its candidates hold the observatory it runs at (one
 * observatory's are `[observatoryId]`, and an assignment picks one of them), so they alone say which observatories' viewers read it.
 */
export function readableBy({ userId, viewableObservatories }: { userId: string; viewableObservatories: ReturnType<typeof sql> }) {
  return sql`(o.owner_id = ${userId}
    or o.candidate_observatory_ids && array(${viewableObservatories})
    or o.project_id in (select p.id from projects p where p.owner_id = ${userId})
    or o.project_id in (select m.project_id from project_members m where m.user_id = ${userId}))`;
}

/** Which of these observations the actor may read (the rule of `readableBy`), in one query. */
export async function readableObservationIds(options: { db: Executor; actor: UserActor; observationIds: string[] }): Promise<Set<string>> {
  const { db, actor, observationIds } = options;
  if (observationIds.length === 0) return new Set();
  const readable = actor.isServerAdmin ? sql`true` : readableBy({ userId: actor.id, viewableObservatories: viewableObservatoryIds(actor.id) });
  const rows = await db.execute<{ id: string }>(sql`select o.id from observations o where o.id in ${observationIds} and ${readable}`);
  return new Set(rows.map((row) => row.id));
}
