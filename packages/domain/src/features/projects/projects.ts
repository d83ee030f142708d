import {
  organizationsCollection,
  projectMembersCollection,
  projectsCollection,
  tables,
  usersCollection,
  type ProjectDoc,
  type StoredDocument,
} from "@meridian/db";
import { DEFAULT_FRAME_GRADING } from "@meridian/rules/frames";
import { and, asc, count, eq, inArray, or, sql } from "drizzle-orm";
import type { z } from "zod";
import { recordAudit } from "../audit";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { requireRoomInScope } from "../../platform/caps";
import { AppError } from "../../platform/errors";
import { isUniqueViolation } from "../../platform/postgres-errors";
import { findUserByEmail, loadUsersById } from "../users";
import type { projectCreateSchema, projectUpdateSchema } from "./schemas";
import { inTransaction, type InTransaction } from "../../platform/transaction";
import { loadOrganizationAccess, requireOrganizationPermission, scopeInvitations } from "../organizations";
import { projectFrames } from "./frames-door";

type Executor = Parameters<typeof projectsCollection.get>[0];
type ProjectRole = "owner" | "admin" | "member" | "organizationManager" | "serverAdmin";

const present = (project: StoredDocument<ProjectDoc>, myRole?: ProjectRole) => ({
  id: project.id,
  name: project.doc.name,
  status: project.doc.status,
  ownerId: project.doc.ownerId,
  organizationId: project.doc.organizationId,
  createdAt: project.createdAt.toISOString(),
  frameGrading: project.doc.frameGrading ?? DEFAULT_FRAME_GRADING,
  ...(myRole ? { myRole } : {}),
});

/**
 * Projects one user may own, and belong to as a member: a user's project list (which the web's
 * pickers read whole) is then bounded, and returned whole. The next is 409 CONFLICT.
 */
export const MAX_OWNED_PROJECTS = 500;
export const MAX_PROJECT_MEMBERSHIPS = 1000;

/**
 * The user's row, locked, then how many projects they own or belong to: concurrent creations and
 * additions for one user count one after another, so none passes a cap beside another.
 */
async function projectsOfUser(t: Pick<InTransaction, "tx">, userId: string, counted: "owned" | "memberships") {
  if (!(await usersCollection.get(t.tx, userId, { forUpdate: true }))) throw new AppError("NOT_FOUND", "No such user");
  const { projects, projectMembers } = tables;
  const [row] =
    counted === "owned"
      ? await t.tx.select({ count: count() }).from(projects).where(eq(projects.ownerId, userId))
      : await t.tx.select({ count: count() }).from(projectMembers).where(eq(projectMembers.userId, userId));
  return row?.count ?? 0;
}

/** Refuses a membership past MAX_PROJECT_MEMBERSHIPS (an addition or an accepted invitation). */
export async function requireRoomForMembership(options: { t: Pick<InTransaction, "tx">; userId: string }) {
  if ((await projectsOfUser(options.t, options.userId, "memberships")) >= MAX_PROJECT_MEMBERSHIPS)
    throw new AppError("CONFLICT", `The account already belongs to ${MAX_PROJECT_MEMBERSHIPS} projects, the most one may; it must leave one first`);
}

/**
 * Members one project may have beside its owner: its member list is then bounded, and returned
 * whole. The next is 409 CONFLICT until one leaves.
 */
export const MAX_PROJECT_MEMBERS = 10_000;

export const projectMemberWhere = ({ projectId, userId }: { projectId: string; userId: string }) =>
  and(eq(tables.projectMembers.projectId, projectId), eq(tables.projectMembers.userId, userId))!;

/**
 * Members read; the owner, project admins, the organization's owner and members with
 * can_manage_projects (for an organization's project) and server admins manage.
 * Anyone else gets 404.
 */
export async function loadProjectAccess(options: { db: Executor; actor: UserActor; projectId: string }) {
  const { db, actor, projectId } = options;
  const { projects, projectMembers, organizations, organizationMembers } = tables;
  // One read: the project with the actor's project role and standing in its organization.
  const [row] = await db
    .select({
      project: { id: projects.id, doc: projects.doc, createdAt: projects.createdAt, updatedAt: projects.updatedAt },
      memberRole: sql<"admin" | "member" | null>`${projectMembers.doc}->>'role'`,
      organizationOwnerId: organizations.ownerId,
      canManageProjects: sql<boolean | null>`(${organizationMembers.doc}->'permissions'->>'can_manage_projects')::boolean`,
    })
    .from(projects)
    .leftJoin(projectMembers, and(eq(projectMembers.projectId, projects.id), eq(projectMembers.userId, actor.id)))
    .leftJoin(organizations, eq(organizations.id, projects.organizationId))
    .leftJoin(organizationMembers, and(eq(organizationMembers.organizationId, projects.organizationId), eq(organizationMembers.userId, actor.id)))
    .where(eq(projects.id, projectId))
    .limit(1);
  if (!row) throw new AppError("NOT_FOUND", "No such project");
  const { project } = row;
  let role: ProjectRole | undefined = project.doc.ownerId === actor.id ? "owner" : (row.memberRole ?? undefined);
  if ((!role || role === "member") && (row.organizationOwnerId === actor.id || row.canManageProjects)) role = "organizationManager";
  if (!role && actor.isServerAdmin) role = "serverAdmin";
  if (!role) throw new AppError("NOT_FOUND", "No such project");
  return { project, role, canManage: role !== "member" };
}

/**
 * Locks the project's row FOR SHARE until the transaction ends and answers it as it is now, or
 * null when it is gone. What goes into a project (an observation, a clone, a member) takes it
 * before writing and judges this status, not one read before: a deletion (FOR UPDATE) under way
 * is waited for, and an archive (an UPDATE of the row, which FOR KEY SHARE would let through)
 * waits until the write commits, so nothing lands in a project archived or deleted meanwhile.
 */
export async function holdProject(options: {
  t: Pick<InTransaction, "tx">;
  projectId: string;
  /** `no key update` for an observation's creation or a member's addition: those into one project then take turns, as their caps need. */
  mode?: "share" | "no key update";
}): Promise<ProjectDoc | null> {
  const { projects } = tables;
  const [row] = await options.t.tx
    .select({ doc: projects.doc })
    .from(projects)
    .where(eq(projects.id, options.projectId))
    .for(options.mode ?? "share");
  return row ? row.doc : null;
}

/** holdProject, with a project gone meanwhile refused as missing (404). */
async function requireHeldProject(options: { t: Pick<InTransaction, "tx">; projectId: string; mode?: "share" | "no key update" }): Promise<ProjectDoc> {
  const project = await holdProject(options);
  if (!project) throw new AppError("NOT_FOUND", "No such project");
  return project;
}

export async function createProject(options: { deps: Deps; actor: UserActor; input: z.infer<typeof projectCreateSchema> }) {
  const { deps, actor, input } = options;
  return inTransaction(deps, async (t) => {
    if (input.organizationId) {
      // Serialized with the organization's deletion, which counts what it owns under this lock.
      await organizationsCollection.get(t.tx, input.organizationId, { forUpdate: true });
      const access = await loadOrganizationAccess({ db: t.tx, actor, organizationId: input.organizationId });
      requireOrganizationPermission({ access, permission: "can_manage_projects" });
    }
    if ((await projectsOfUser(t, actor.id, "owned")) >= MAX_OWNED_PROJECTS)
      throw new AppError("CONFLICT", `You own ${MAX_OWNED_PROJECTS} projects, the most one may; delete an archived one first`);
    const project = await projectsCollection.insert(t.tx, {
      name: input.name,
      status: "active",
      ownerId: actor.id,
      organizationId: input.organizationId ?? null,
    });
    const scope = { kind: "project" as const, id: project.id, name: input.name };
    await recordAudit({ t, actor, action: "project.created", target: scope, scope, after: { name: input.name, organizationId: input.organizationId ?? null } });
    return present(project, "owner");
  });
}

export async function listProjects(options: { deps: Deps; actor: UserActor }) {
  const { deps, actor } = options;
  const { projects, projectMembers } = tables;
  const memberships = await deps.db.select().from(projectMembers).where(eq(projectMembers.userId, actor.id));
  const roleById = new Map(memberships.map((membership) => [membership.projectId, membership.doc.role]));
  const rows = await deps.db
    .select()
    .from(projects)
    .where(or(eq(projects.ownerId, actor.id), roleById.size ? inArray(projects.id, [...roleById.keys()]) : undefined))
    .orderBy(asc(projects.createdAt))
    // Whole: the caps bound it (and a list read whole before the caps came stays readable to this many).
    .limit(MAX_OWNED_PROJECTS + MAX_PROJECT_MEMBERSHIPS);
  return { items: rows.map((row) => present(row, row.doc.ownerId === actor.id ? "owner" : roleById.get(row.id))), nextCursor: null };
}

export async function getProject(options: { deps: Deps; actor: UserActor; projectId: string }) {
  const { project, role } = await loadProjectAccess({ db: options.deps.db, actor: options.actor, projectId: options.projectId });
  return present(project, role);
}

export async function updateProject(options: { deps: Deps; actor: UserActor; projectId: string; input: z.infer<typeof projectUpdateSchema> }) {
  const { deps, actor, projectId, input } = options;
  return inTransaction(deps, async (t) => {
    // Locked first, as deleteProject does: a project deleted meanwhile is 404, and `before` is what this update replaced.
    const locked = await projectsCollection.get(t.tx, projectId, { forUpdate: true });
    if (!locked) throw new AppError("NOT_FOUND", "No such project");
    const access = await loadProjectAccess({ db: t.tx, actor, projectId });
    if (!access.canManage) throw new AppError("FORBIDDEN", "Only the owner or a project admin may change the project");
    const grading = locked.doc.frameGrading ?? DEFAULT_FRAME_GRADING;
    const frameGrading = { ...grading, ...input.frameGrading };
    const regrade = (Object.keys(frameGrading) as Array<keyof typeof frameGrading>).some((check) => frameGrading[check] !== grading[check]);
    const updated = await projectsCollection.update(
      t.tx,
      projectId,
      (doc) => ({ ...doc, name: input.name ?? doc.name, status: input.status ?? doc.status, ...(input.frameGrading ? { frameGrading } : {}) }),
      { seen: locked },
    );
    if (regrade) await projectFrames().regrade({ t, projectId, grading: frameGrading });
    const scope = { kind: "project" as const, id: projectId, name: updated!.doc.name };
    await recordAudit({
      t,
      actor,
      action: "project.updated",
      target: scope,
      scope,
      before: { name: access.project.doc.name, status: access.project.doc.status, ...(regrade ? { frameGrading: grading } : {}) },
      after: { name: updated!.doc.name, status: updated!.doc.status, ...(regrade ? { frameGrading } : {}) },
    });
    return present(updated!, access.role);
  });
}

export async function listProjectMembers(options: { deps: Deps; actor: UserActor; projectId: string }) {
  const { deps, actor, projectId } = options;
  const { project } = await loadProjectAccess({ db: deps.db, actor, projectId });
  const members = await projectMembersCollection.findMany(
    deps.db,
    eq(tables.projectMembers.projectId, projectId),
    asc(tables.projectMembers.createdAt),
    // Whole: the cap bounds it (a project past it from before the cap came still reads this many).
    MAX_PROJECT_MEMBERS,
  );
  const users = await loadUsersById({ db: deps.db, ids: [project.doc.ownerId, ...members.map((member) => member.doc.userId)] });
  const owner = users.get(project.doc.ownerId);
  return {
    items: [
      ...(owner ? [{ userId: owner.id, email: owner.doc.email, name: owner.doc.name, role: "owner" as const, joinedAt: project.createdAt.toISOString() }] : []),
      ...members.flatMap((member) => {
        const user = users.get(member.doc.userId);
        return user ? [{ userId: user.id, email: user.doc.email, name: user.doc.name, role: member.doc.role, joinedAt: member.createdAt.toISOString() }] : [];
      }),
    ],
    nextCursor: null,
  };
}

export async function addProjectMember(options: { deps: Deps; actor: UserActor; projectId: string; email: string; role: "admin" | "member" }) {
  const { deps, actor, projectId, role } = options;
  try {
    return await inTransaction(deps, async (t) => {
      // Held first, as deleteProject locks it first: a deletion under way is waited for, and its project gone is 404.
      // FOR NO KEY UPDATE: additions into one project take turns, so its member cap is counted by one at a time.
      await requireHeldProject({ t, projectId, mode: "no key update" });
      const access = await loadProjectAccess({ db: t.tx, actor, projectId });
      if (!access.canManage) throw new AppError("FORBIDDEN", "Only the owner or a project admin may add members");
      const user = await findUserByEmail({ db: t.tx, email: options.email });
      if (user.id === access.project.doc.ownerId) throw new AppError("ALREADY_MEMBER", "This user owns the project");
      // A member already is told so, not that the project or their list of projects is full.
      if (await projectMembersCollection.findOne(t.tx, projectMemberWhere({ projectId, userId: user.id })))
        throw new AppError("ALREADY_MEMBER", "This user is already a member");
      await requireRoomInScope({ t, scope: "project", id: projectId, cap: MAX_PROJECT_MEMBERS });
      await requireRoomForMembership({ t, userId: user.id });
      const member = await projectMembersCollection.insert(t.tx, { projectId, userId: user.id, role });
      await scopeInvitations().endFor({ t, kind: "project", scopeId: projectId, email: user.doc.email });
      await recordAudit({
        t,
        actor,
        action: "project.member_added",
        target: { kind: "user", id: user.id, name: user.doc.name },
        scope: { kind: "project", id: projectId, name: access.project.doc.name },
        after: { role },
      });
      return { userId: user.id, email: user.doc.email, name: user.doc.name, role, joinedAt: member.createdAt.toISOString() };
    });
  } catch (error) {
    if (isUniqueViolation({ error, constraint: "project_members_key" })) throw new AppError("ALREADY_MEMBER", "This user is already a member");
    throw error;
  }
}

export async function removeProjectMember(options: { deps: Deps; actor: UserActor; projectId: string; userId: string }) {
  const { deps, actor, projectId, userId } = options;
  await inTransaction(deps, async (t) => {
    const access = await loadProjectAccess({ db: t.tx, actor, projectId });
    if (userId !== actor.id && !access.canManage) throw new AppError("FORBIDDEN", "Only the owner or a project admin may remove members");
    if (userId === access.project.doc.ownerId) throw new AppError("OWNER_CANNOT_BE_REMOVED", "The project owner cannot be removed");
    const member = await projectMembersCollection.findOne(t.tx, projectMemberWhere({ projectId, userId }));
    if (!member) throw new AppError("NOT_FOUND", "This user is not a member");
    await projectMembersCollection.remove(t.tx, member.id);
    const user = (await loadUsersById({ db: t.tx, ids: [userId] })).get(userId);
    if (user) await scopeInvitations().endFor({ t, kind: "project", scopeId: projectId, email: user.doc.email });
    await recordAudit({
      t,
      actor,
      action: "project.member_removed",
      target: { kind: "user", id: userId, name: user?.doc.name ?? null },
      scope: { kind: "project", id: projectId, name: access.project.doc.name },
      before: { role: member.doc.role },
    });
  });
}
