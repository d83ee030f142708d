import { projectMembersCollection, projectsCollection, tables } from "@meridian/db";
import { eq } from "drizzle-orm";
import { recordAudit } from "../audit";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { scopeAnnouncements, scopeInvitations } from "../organizations";
import { loadUsersById } from "../users";
import { loadProjectAccess, projectMemberWhere } from "./projects";
import { inTransaction } from "../../platform/transaction";

/** The owner or a project admin (also organization managers and server admins) moves a member between admin and member. */
export async function updateProjectMemberRole(options: { deps: Deps; actor: UserActor; projectId: string; userId: string; role: "admin" | "member" }) {
  const { deps, actor, projectId, userId, role } = options;
  return inTransaction(deps, async (t) => {
    const access = await loadProjectAccess({ db: t.tx, actor, projectId });
    if (!access.canManage) throw new AppError("FORBIDDEN", "Only the owner or a project admin may change roles");
    if (userId === access.project.doc.ownerId) throw new AppError("OWNER_ROLE_FIXED", "The owner's role cannot be changed; transfer the project instead");
    const member = await projectMembersCollection.findOne(t.tx, projectMemberWhere({ projectId, userId }));
    if (!member) throw new AppError("NOT_FOUND", "This user is not a member");
    const user = (await loadUsersById({ db: t.tx, ids: [userId] })).get(userId)!;
    const present = { userId, email: user.doc.email, name: user.doc.name, role, joinedAt: member.createdAt.toISOString() };
    if (member.doc.role === role) return present;
    await projectMembersCollection.update(t.tx, member.id, (doc) => ({ ...doc, role }));
    const scope = { kind: "project" as const, id: projectId, name: access.project.doc.name };
    await recordAudit({
      t,
      actor,
      action: "project.member_role_updated",
      target: { kind: "user", id: userId, name: user.doc.name },
      scope,
      before: { role: member.doc.role },
      after: { role },
    });
    return present;
  });
}

/**
 * The owner (or a server admin) deletes an archived project with its memberships; its active
 * announcements are cancelled. Project admins are refused (403), everyone else sees 404.
 */
export async function deleteProject(options: { deps: Deps; actor: UserActor; projectId: string }) {
  const { deps, actor, projectId } = options;
  await inTransaction(deps, async (t) => {
    await projectsCollection.get(t.tx, projectId, { forUpdate: true });
    const access = await loadProjectAccess({ db: t.tx, actor, projectId });
    if (access.role !== "owner" && !actor.isServerAdmin) throw new AppError("FORBIDDEN", "Only the project's owner may delete it");
    const { doc } = access.project;
    if (doc.status !== "archived") throw new AppError("PROJECT_NOT_ARCHIVED", `Archive the project before deleting it (it is ${doc.status})`);
    await scopeAnnouncements().cancelAll({ t, actor, scope: "project", scopeId: projectId, reason: `The project ${doc.name} was deleted.` });
    await t.tx.delete(tables.projectMembers).where(eq(tables.projectMembers.projectId, projectId));
    await scopeInvitations().endAll({ t, kind: "project", scopeId: projectId });
    await projectsCollection.remove(t.tx, projectId);
    const scope = { kind: "project" as const, id: projectId, name: doc.name };
    await recordAudit({
      t,
      actor,
      action: "project.deleted",
      target: scope,
      scope,
      before: { name: doc.name, status: doc.status, ownerId: doc.ownerId, organizationId: doc.organizationId },
    });
  });
}
