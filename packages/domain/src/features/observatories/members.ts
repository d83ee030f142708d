import { observatoriesCollection, observatoryMembersCollection, organizationsCollection, tables, type ObservatoryPermissions } from "@meridian/db";
import { asc, eq, inArray } from "drizzle-orm";
import { recordAudit } from "../audit";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { isUniqueViolation } from "../../platform/postgres-errors";
import { ALL_OBSERVATORY_PERMISSIONS, NO_OBSERVATORY_PERMISSIONS, requireObservatoryPermission } from "../permissions";
import { findUserByEmail, loadUsersById } from "../users";
import {
  lockObservatoryMember,
  MAX_OBSERVATORY_ORGANIZATION_MEMBERS,
  MAX_OBSERVATORY_USER_MEMBERS,
  observatoryMemberWhere,
  recordHistory,
  requireRoomForObservatoryMember,
} from "./observatories";
import { inTransaction, type InTransaction } from "../../platform/transaction";
import { scopeInvitations } from "../organizations";

type PermissionsInput = Partial<ObservatoryPermissions>;

/**
 * Locks the observatory's row, as its transfer does, before any membership write: the owner read here stays the
 * owner until the transaction ends. Then the actor's permission, judged on the observatory as it now is.
 */
async function lockObservatory(t: InTransaction, actor: UserActor, observatoryId: string, permission: "can_admin" | "can_view" = "can_admin") {
  const observatory = await observatoriesCollection.get(t.tx, observatoryId, { forUpdate: true });
  if (!observatory) throw new AppError("NOT_FOUND", "No such observatory");
  await requireObservatoryPermission({ db: t.tx, actor, observatoryId, permission });
  return observatory;
}

/** Holds the organization against its deletion (which takes its row for update) until the transaction ends. */
async function holdOrganization(t: InTransaction, organizationId: string) {
  const { organizations } = tables;
  const [organization] = await t.tx
    .select({ doc: organizations.doc })
    .from(organizations)
    .where(eq(organizations.id, organizationId))
    .for("key share")
    .limit(1);
  if (!organization) throw new AppError("NOT_FOUND", "No such organization");
  return organization.doc;
}

export async function listObservatoryMembers(options: { deps: Deps; actor: UserActor; observatoryId: string }) {
  const { deps, actor, observatoryId } = options;
  await requireObservatoryPermission({ db: deps.db, actor, observatoryId, permission: "can_view" });
  const observatory = await observatoriesCollection.get(deps.db, observatoryId);
  if (!observatory) throw new AppError("NOT_FOUND", "No such observatory");
  const members = await observatoryMembersCollection.findMany(
    deps.db,
    eq(tables.observatoryMembers.observatoryId, observatoryId),
    asc(tables.observatoryMembers.createdAt),
    // Whole: the caps bound both kinds (an observatory past them from before the caps came still reads this many).
    MAX_OBSERVATORY_USER_MEMBERS + MAX_OBSERVATORY_ORGANIZATION_MEMBERS,
  );
  const userMembers = members.filter((member) => member.doc.memberKind === "user");
  const orgMembers = members.filter((member) => member.doc.memberKind === "organization");
  const owner = observatory.doc.owner;
  const users = await loadUsersById({ db: deps.db, ids: [...userMembers.map((member) => member.doc.memberId), ...(owner.kind === "user" ? [owner.id] : [])] });
  const organizations = orgMembers.length
    ? await deps.db
        .select()
        .from(tables.organizations)
        .where(
          inArray(
            tables.organizations.id,
            orgMembers.map((member) => member.doc.memberId),
          ),
        )
    : [];
  const orgById = new Map(organizations.map((organization) => [organization.id, organization]));
  const ownerUser = owner.kind === "user" ? users.get(owner.id) : undefined;
  return {
    users: [
      ...(ownerUser
        ? [{ userId: ownerUser.id, email: ownerUser.doc.email, name: ownerUser.doc.name, permissions: ALL_OBSERVATORY_PERMISSIONS, source: "owner" as const }]
        : []),
      ...userMembers.flatMap((member) => {
        const user = users.get(member.doc.memberId);
        return user && user.id !== ownerUser?.id
          ? [{ userId: user.id, email: user.doc.email, name: user.doc.name, permissions: member.doc.permissions, source: "direct" as const }]
          : [];
      }),
    ],
    organizations: orgMembers.flatMap((member) => {
      const organization = orgById.get(member.doc.memberId);
      return organization
        ? [
            {
              organizationId: organization.id,
              name: organization.doc.name,
              permissions: member.doc.permissions,
              owning: owner.kind === "organization" && owner.id === organization.id,
            },
          ]
        : [];
    }),
  };
}

export async function addObservatoryUser(options: { deps: Deps; actor: UserActor; observatoryId: string; email: string; permissions?: PermissionsInput }) {
  const { deps, actor, observatoryId } = options;
  try {
    return await inTransaction(deps, async (t) => {
      const observatory = await lockObservatory(t, actor, observatoryId);
      const user = await findUserByEmail({ db: t.tx, email: options.email });
      if (observatory.doc.owner.kind === "user" && observatory.doc.owner.id === user.id) throw new AppError("ALREADY_MEMBER", "This user owns the observatory");
      // A member already is told so, not that the observatory is full.
      if (await observatoryMembersCollection.findOne(t.tx, observatoryMemberWhere({ observatoryId, kind: "user", memberId: user.id })))
        throw new AppError("ALREADY_MEMBER", "This user is already a member");
      await requireRoomForObservatoryMember({ t, observatoryId, kind: "user" });
      const permissions = { ...NO_OBSERVATORY_PERMISSIONS, can_view: true, ...options.permissions };
      await observatoryMembersCollection.insert(t.tx, { observatoryId, memberKind: "user", memberId: user.id, permissions });
      await scopeInvitations().endFor({ t, kind: "observatory", scopeId: observatoryId, email: user.doc.email });
      await recordHistory({
        t,
        observatoryId,
        type: "member_added",
        actorId: actor.id,
        data: { userId: user.id, userName: user.doc.name, email: user.doc.email, permissionsBefore: null, permissionsAfter: permissions },
      });
      await recordAudit({
        t,
        actor,
        action: "observatory.member_added",
        target: { kind: "user", id: user.id, name: user.doc.name },
        scope: { kind: "observatory", id: observatoryId, name: observatory.doc.name },
        after: { permissions },
      });
      return { userId: user.id, email: user.doc.email, name: user.doc.name, permissions, source: "direct" as const };
    });
  } catch (error) {
    if (isUniqueViolation({ error, constraint: "observatory_members_key" })) throw new AppError("ALREADY_MEMBER", "This user is already a member");
    throw error;
  }
}

export async function updateObservatoryUser(options: { deps: Deps; actor: UserActor; observatoryId: string; userId: string; permissions: PermissionsInput }) {
  const { deps, actor, observatoryId, userId } = options;
  return inTransaction(deps, async (t) => {
    const observatory = await lockObservatory(t, actor, observatoryId);
    const member = await lockObservatoryMember({ t, observatoryId, kind: "user", memberId: userId });
    if (!member) throw new AppError("NOT_FOUND", "This user is not a member");
    const updated = await observatoryMembersCollection.update(
      t.tx,
      member.id,
      (doc) => ({ ...doc, permissions: { ...doc.permissions, ...options.permissions } }),
      { seen: member },
    );
    if (!updated) throw new AppError("NOT_FOUND", "This user is not a member");
    const user = (await loadUsersById({ db: t.tx, ids: [userId] })).get(userId)!;
    await recordHistory({
      t,
      observatoryId,
      type: "member_permissions_updated",
      actorId: actor.id,
      data: { userId, userName: user.doc.name, email: user.doc.email, permissionsBefore: member.doc.permissions, permissionsAfter: updated.doc.permissions },
    });
    await recordAudit({
      t,
      actor,
      action: "observatory.member_permissions_updated",
      target: { kind: "user", id: userId, name: user.doc.name },
      scope: { kind: "observatory", id: observatoryId, name: observatory.doc.name },
      before: member.doc.permissions,
      after: updated.doc.permissions,
    });
    return { userId, email: user.doc.email, name: user.doc.name, permissions: updated.doc.permissions, source: "direct" as const };
  });
}

export async function removeObservatoryUser(options: { deps: Deps; actor: UserActor; observatoryId: string; userId: string }) {
  const { deps, actor, observatoryId, userId } = options;
  await inTransaction(deps, async (t) => {
    // Leaving needs only to see the observatory; removing another, to administer it.
    const observatory = await lockObservatory(t, actor, observatoryId, userId === actor.id ? "can_view" : "can_admin");
    if (observatory.doc.owner.kind === "user" && observatory.doc.owner.id === userId) {
      throw new AppError("OWNER_CANNOT_BE_REMOVED", "Transfer the observatory before its owner can leave");
    }
    const member = await lockObservatoryMember({ t, observatoryId, kind: "user", memberId: userId });
    if (!member || !(await observatoryMembersCollection.remove(t.tx, member.id))) throw new AppError("NOT_FOUND", "This user is not a member");
    const user = (await loadUsersById({ db: t.tx, ids: [userId] })).get(userId);
    if (user) await scopeInvitations().endFor({ t, kind: "observatory", scopeId: observatoryId, email: user.doc.email });
    const left = userId === actor.id;
    await recordHistory({
      t,
      observatoryId,
      type: "member_removed",
      actorId: actor.id,
      data: {
        userId,
        userName: user?.doc.name ?? null,
        email: user?.doc.email ?? null,
        left,
        permissionsBefore: member.doc.permissions,
        permissionsAfter: null,
      },
    });
    await recordAudit({
      t,
      actor,
      action: left ? "observatory.member_left" : "observatory.member_removed",
      target: { kind: "user", id: userId, name: user?.doc.name ?? null },
      scope: { kind: "observatory", id: observatoryId, name: observatory.doc.name },
      before: { permissions: member.doc.permissions },
    });
  });
}

export async function addObservatoryOrganization(options: {
  deps: Deps;
  actor: UserActor;
  observatoryId: string;
  organizationId: string;
  permissions?: PermissionsInput;
}) {
  const { deps, actor, observatoryId, organizationId } = options;
  try {
    return await inTransaction(deps, async (t) => {
      const observatory = await lockObservatory(t, actor, observatoryId);
      // Its deletion ends its memberships under its row lock: held here, it cannot end before this one is written.
      const organization = await holdOrganization(t, organizationId);
      if (await observatoryMembersCollection.findOne(t.tx, observatoryMemberWhere({ observatoryId, kind: "organization", memberId: organizationId })))
        throw new AppError("ALREADY_MEMBER", "This organization is already a member");
      await requireRoomForObservatoryMember({ t, observatoryId, kind: "organization" });
      const permissions = { ...NO_OBSERVATORY_PERMISSIONS, can_view: true, ...options.permissions };
      await observatoryMembersCollection.insert(t.tx, { observatoryId, memberKind: "organization", memberId: organizationId, permissions });
      const data = { organizationId, organizationName: organization.name, permissionsBefore: null, permissionsAfter: permissions };
      await recordHistory({ t, observatoryId, type: "organization_added", actorId: actor.id, data });
      await recordAudit({
        t,
        actor,
        action: "observatory.organization_added",
        target: { kind: "organization", id: organizationId, name: organization.name },
        scope: { kind: "observatory", id: observatoryId, name: observatory.doc.name },
        after: { permissions },
      });
      return { organizationId, name: organization.name, permissions, owning: false };
    });
  } catch (error) {
    if (isUniqueViolation({ error, constraint: "observatory_members_key" })) throw new AppError("ALREADY_MEMBER", "This organization is already a member");
    throw error;
  }
}

/**
 * The history entry and the audit record of a change to an organization's grant on the observatory, under the
 * organization's name as it is now (null once the organization is gone), which it answers.
 */
async function recordOrganizationGrantChange(options: {
  t: InTransaction;
  actor: UserActor;
  observatory: { id: string; doc: { name: string } };
  organizationId: string;
  change: "permissions_updated" | "removed";
  before: ObservatoryPermissions;
  after: ObservatoryPermissions | null;
}) {
  const { t, actor, observatory, organizationId, before, after } = options;
  const organization = await organizationsCollection.get(t.tx, organizationId);
  const name = organization?.doc.name ?? null;
  await recordHistory({
    t,
    observatoryId: observatory.id,
    type: `organization_${options.change}`,
    actorId: actor.id,
    data: { organizationId, organizationName: name, permissionsBefore: before, permissionsAfter: after },
  });
  await recordAudit({
    t,
    actor,
    action: `observatory.organization_${options.change}`,
    target: { kind: "organization", id: organizationId, name },
    scope: { kind: "observatory", id: observatory.id, name: observatory.doc.name },
    before,
    after,
  });
  return name;
}

export async function updateObservatoryOrganization(options: {
  deps: Deps;
  actor: UserActor;
  observatoryId: string;
  organizationId: string;
  permissions: PermissionsInput;
}) {
  const { deps, actor, observatoryId, organizationId } = options;
  return inTransaction(deps, async (t) => {
    const observatory = await lockObservatory(t, actor, observatoryId);
    const member = await lockObservatoryMember({ t, observatoryId, kind: "organization", memberId: organizationId });
    if (!member) throw new AppError("NOT_FOUND", "This organization is not a member");
    const owning = observatory.doc.owner.kind === "organization" && observatory.doc.owner.id === organizationId;
    const permissions = { ...member.doc.permissions, ...options.permissions };
    // Refused even where the closure would give the permission back (can_admin implies can_observe): the owning
    // organization's grant, as the member list shows it, stays every permission.
    if (owning && Object.values(permissions).some((value) => !value)) {
      throw new AppError("OWNER_PERMISSIONS_FIXED", "The owning organization keeps every permission");
    }
    const updated = await observatoryMembersCollection.update(t.tx, member.id, (doc) => ({ ...doc, permissions }), { seen: member });
    if (!updated) throw new AppError("NOT_FOUND", "This organization is not a member");
    const name = await recordOrganizationGrantChange({
      t,
      actor,
      observatory,
      organizationId,
      change: "permissions_updated",
      before: member.doc.permissions,
      after: permissions,
    });
    return { organizationId, name: name ?? "", permissions, owning };
  });
}

export async function removeObservatoryOrganization(options: { deps: Deps; actor: UserActor; observatoryId: string; organizationId: string }) {
  const { deps, actor, observatoryId, organizationId } = options;
  await inTransaction(deps, async (t) => {
    const observatory = await lockObservatory(t, actor, observatoryId);
    const member = await lockObservatoryMember({ t, observatoryId, kind: "organization", memberId: organizationId });
    if (!member) throw new AppError("NOT_FOUND", "This organization is not a member");
    if (observatory.doc.owner.kind === "organization" && observatory.doc.owner.id === organizationId) {
      throw new AppError("OWNING_ORGANIZATION_CANNOT_BE_REMOVED", "Transfer the observatory before removing its owning organization");
    }
    if (!(await observatoryMembersCollection.remove(t.tx, member.id))) throw new AppError("NOT_FOUND", "This organization is not a member");
    await recordOrganizationGrantChange({ t, actor, observatory, organizationId, change: "removed", before: member.doc.permissions, after: null });
  });
}
