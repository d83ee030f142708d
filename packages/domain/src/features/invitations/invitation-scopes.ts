import {
  observatoriesCollection,
  observatoryMembersCollection,
  organizationMembersCollection,
  projectMembersCollection,
  tables,
  type Executor,
  type InvitationGrant,
  type InvitationKind,
} from "@meridian/db";
import { and, eq } from "drizzle-orm";
import type { UserActor } from "../../platform/actor";
import { requireRoomInScope } from "../../platform/caps";
import { recordAudit, type AuditActor } from "../audit";
import { AppError } from "../../platform/errors";
import { publishUserEvent } from "../../platform/events/publish";
import { observatoryMemberWhere, recordHistory, requireRoomForObservatoryMember } from "../observatories";
import { loadOrganizationAccess, requireOrganizationPermission, MAX_ORGANIZATION_MEMBERS, requireRoomForOrganizationMembership } from "../organizations";
import { requireObservatoryPermission } from "../permissions";
import { holdProject, loadProjectAccess, MAX_PROJECT_MEMBERS, requireRoomForMembership } from "../projects";
import type { InTransaction } from "../../platform/transaction";

/** The organization, observatory or project an invitation is for, as its log names it. */
export interface InvitationScope {
  kind: InvitationKind;
  id: string;
  name: string;
}

/** What differs between the three kinds of invitation; everything else is shared. */
interface ScopeRules {
  /** Who may invite, list and revoke: throws NOT_FOUND or FORBIDDEN for anyone else. */
  requireManager(options: { db: Executor; actor: UserActor; id: string }): Promise<InvitationScope>;
  /** The scope as it is now, or null when it is gone (deleted or removed). */
  load(options: { db: Executor; id: string }): Promise<InvitationScope | null>;
  /**
   * The scope as load gives it, its row locked until the transaction ends so that its deletion or
   * removal (which locks the row FOR UPDATE, then ends its members and invitations) waits for a
   * joining member, or null when it is gone. Taken before the invitation's row, in that order.
   */
  hold(options: { t: Pick<InTransaction, "tx">; id: string }): Promise<InvitationScope | null>;
  isMember(options: { db: Executor; id: string; userId: string }): Promise<boolean>;
  /** Makes the user a member with what the invitation grants. */
  join(options: {
    t: InTransaction;
    scope: InvitationScope;
    user: AuditActor & { email: string };
    grant: InvitationGrant;
    invitationId: string;
  }): Promise<void>;
}

const organizationRules: ScopeRules = {
  async requireManager({ db, actor, id }) {
    const access = await loadOrganizationAccess({ db, actor, organizationId: id });
    requireOrganizationPermission({ access, permission: "can_manage_members" });
    return { kind: "organization", id, name: access.organization.doc.name };
  },
  async load({ db, id }) {
    const [row] = await db.select({ name: tables.organizations.doc }).from(tables.organizations).where(eq(tables.organizations.id, id)).limit(1);
    return row ? { kind: "organization", id, name: row.name.name } : null;
  },
  async hold({ t, id }) {
    // FOR NO KEY UPDATE, not KEY SHARE: acceptances into one organization then take turns (as its direct
    // additions do under FOR UPDATE), so its member cap is counted by one at a time.
    const { organizations } = tables;
    const [row] = await t.tx.select({ doc: organizations.doc }).from(organizations).where(eq(organizations.id, id)).for("no key update");
    return row ? { kind: "organization", id, name: row.doc.name } : null;
  },
  async isMember({ db, id, userId }) {
    const { organizationMembers } = tables;
    const member = await organizationMembersCollection.findOne(db, and(eq(organizationMembers.organizationId, id), eq(organizationMembers.userId, userId))!);
    return member != null;
  },
  async join({ t, scope, user, grant }) {
    if (grant.kind !== "organization") return;
    await requireRoomInScope({ t, scope: "organization", id: scope.id, cap: MAX_ORGANIZATION_MEMBERS });
    await requireRoomForOrganizationMembership({ t, userId: user.id });
    await organizationMembersCollection.insert(t.tx, { organizationId: scope.id, userId: user.id, permissions: grant.permissions });
    await publishUserEvent({
      t,
      userIds: [user.id],
      event: { type: "organization.member_added", data: { organizationId: scope.id, organizationName: scope.name, permissions: grant.permissions } },
    });
  },
};

const observatoryRules: ScopeRules = {
  async requireManager({ db, actor, id }) {
    await requireObservatoryPermission({ db, actor, observatoryId: id, permission: "can_admin" });
    const observatory = await observatoriesCollection.get(db, id);
    if (!observatory) throw new AppError("NOT_FOUND", "No such observatory");
    return { kind: "observatory", id, name: observatory.doc.name };
  },
  async load({ db, id }) {
    const observatory = await observatoriesCollection.get(db, id);
    return observatory && !observatory.doc.removedAt ? { kind: "observatory", id, name: observatory.doc.name } : null;
  },
  async hold({ t, id }) {
    // A removal locks the row FOR UPDATE before marking it, so what is read here under the lock stays true. FOR NO KEY
    // UPDATE, not KEY SHARE: acceptances into one observatory then take turns (as its direct additions do under FOR
    // UPDATE), so its member cap is counted by one at a time; a settings write waits only for the short acceptance.
    const { observatories } = tables;
    const [row] = await t.tx.select({ doc: observatories.doc }).from(observatories).where(eq(observatories.id, id)).for("no key update");
    return row && !row.doc.removedAt ? { kind: "observatory", id, name: row.doc.name } : null;
  },
  async isMember({ db, id, userId }) {
    const observatory = await observatoriesCollection.get(db, id);
    if (observatory?.doc.owner.kind === "user" && observatory.doc.owner.id === userId) return true;
    return (await observatoryMembersCollection.findOne(db, observatoryMemberWhere({ observatoryId: id, kind: "user", memberId: userId }))) != null;
  },
  async join({ t, scope, user, grant, invitationId }) {
    if (grant.kind !== "observatory") return;
    await requireRoomForObservatoryMember({ t, observatoryId: scope.id, kind: "user" });
    await observatoryMembersCollection.insert(t.tx, { observatoryId: scope.id, memberKind: "user", memberId: user.id, permissions: grant.permissions });
    await recordHistory({
      t,
      observatoryId: scope.id,
      type: "member_added",
      actorId: user.id,
      data: { userId: user.id, userName: user.name, email: user.email, permissionsBefore: null, permissionsAfter: grant.permissions, invitationId },
    });
  },
};

const projectRules: ScopeRules = {
  async requireManager({ db, actor, id }) {
    const access = await loadProjectAccess({ db, actor, projectId: id });
    if (!access.canManage) throw new AppError("FORBIDDEN", "Only the owner or a project admin may invite members");
    return { kind: "project", id, name: access.project.doc.name };
  },
  async load({ db, id }) {
    const [row] = await db.select({ doc: tables.projects.doc }).from(tables.projects).where(eq(tables.projects.id, id)).limit(1);
    return row ? { kind: "project", id, name: row.doc.name } : null;
  },
  async hold({ t, id }) {
    // As a direct addition holds it: acceptances into one project take turns, so its member cap is counted by one at a time.
    const project = await holdProject({ t, projectId: id, mode: "no key update" });
    return project ? { kind: "project", id, name: project.name } : null;
  },
  async isMember({ db, id, userId }) {
    const [row] = await db.select({ ownerId: tables.projects.ownerId }).from(tables.projects).where(eq(tables.projects.id, id)).limit(1);
    if (row?.ownerId === userId) return true;
    const { projectMembers } = tables;
    return (await projectMembersCollection.findOne(db, and(eq(projectMembers.projectId, id), eq(projectMembers.userId, userId))!)) != null;
  },
  async join({ t, scope, user, grant }) {
    if (grant.kind !== "project") return;
    await requireRoomInScope({ t, scope: "project", id: scope.id, cap: MAX_PROJECT_MEMBERS });
    await requireRoomForMembership({ t, userId: user.id });
    await projectMembersCollection.insert(t.tx, { projectId: scope.id, userId: user.id, role: grant.role });
  },
};

export const invitationScopeRules: Record<InvitationKind, ScopeRules> = {
  organization: organizationRules,
  observatory: observatoryRules,
  project: projectRules,
};

/** Every invitation change goes to the scope's audit log and, for an observatory, its history too. */
export async function recordInvitationChange(options: {
  t: InTransaction;
  actor: AuditActor;
  scope: InvitationScope;
  change: "invitation_sent" | "invitation_revoked" | "invitation_accepted";
  invitation: { id: string; email: string };
  details?: Record<string, unknown>;
}) {
  const { t, actor, scope, change, invitation } = options;
  await recordAudit({
    t,
    actor,
    action: `${scope.kind}.${change}`,
    target: { kind: "invitation", id: invitation.id, name: invitation.email },
    scope: { kind: scope.kind, id: scope.id, name: scope.name },
    after: { email: invitation.email, ...options.details },
  });
  if (scope.kind === "observatory")
    await recordHistory({
      t,
      observatoryId: scope.id,
      type: change,
      actorId: actor.id,
      data: { invitationId: invitation.id, email: invitation.email, ...options.details },
    });
}
