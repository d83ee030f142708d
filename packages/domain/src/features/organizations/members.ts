import { organizationMembersCollection, organizationsCollection, tables, type OrganizationMemberDoc, type OrganizationPermissions } from "@meridian/db";
import { and, asc, eq, inArray } from "drizzle-orm";
import { recordAudit } from "../audit";
import { publishUserEvent } from "../../platform/events/publish";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { requireRoomInScope } from "../../platform/caps";
import { isUniqueViolation } from "../../platform/postgres-errors";
import { findUserByEmail, loadUsersById } from "../users";
import { ALL_ORGANIZATION_PERMISSIONS, loadOrganizationAccess, NO_ORGANIZATION_PERMISSIONS, requireOrganizationPermission } from "./organization-access";
import { presentOrganization, presentOrganizationMember } from "./present";
import { inTransaction, type InTransaction } from "../../platform/transaction";
import { scopeInvitations } from "./scope-door";
import { MAX_ORGANIZATION_MEMBERS, requireRoomForOrganizationMembership, requireRoomForOwnedOrganization } from "./organizations";

type PermissionsInput = Partial<OrganizationPermissions>;

const memberWhere = (organizationId: string, userId: string) =>
  and(eq(tables.organizationMembers.organizationId, organizationId), eq(tables.organizationMembers.userId, userId))!;

const notAMember = () => new AppError("NOT_FOUND", "This user is not a member");

/** Locks these accounts' rows FOR UPDATE in id order, so that two who lock the same ones take them in one order. */
async function lockUsersInOrder(options: { t: Pick<InTransaction, "tx">; ids: string[] }) {
  const { users } = tables;
  await options.t.tx.select({ id: users.id }).from(users).where(inArray(users.id, options.ids)).orderBy(asc(users.id)).for("update");
}

/*
 * Every write below depends on the organization's owner or on its existence, so each one starts by locking the
 * organization row (`loadOrganizationAccess` with `forUpdate`), as its deletion does, and only then touches member
 * rows: one order for all of them, so they queue instead of deadlocking, and none acts on an owner another has
 * just replaced or adds to an organization that is being deleted.
 */

export async function listOrganizationMembers(options: { deps: Deps; actor: UserActor; organizationId: string }) {
  const { deps, actor, organizationId } = options;
  const access = await loadOrganizationAccess({ db: deps.db, actor, organizationId });
  const members = await organizationMembersCollection.findMany(
    deps.db,
    eq(tables.organizationMembers.organizationId, organizationId),
    asc(tables.organizationMembers.createdAt),
    // Whole: the cap bounds it (an organization past it from before the cap came still reads this many).
    MAX_ORGANIZATION_MEMBERS,
  );
  const users = await loadUsersById({ db: deps.db, ids: members.map((member) => member.doc.userId) });
  return {
    items: members.flatMap((member) => {
      const user = users.get(member.doc.userId);
      return user ? [presentOrganizationMember({ member, user, ownerId: access.organization.doc.ownerId })] : [];
    }),
    nextCursor: null,
  };
}

export async function addOrganizationMember(options: { deps: Deps; actor: UserActor; organizationId: string; email: string; permissions?: PermissionsInput }) {
  const { deps, actor, organizationId } = options;
  try {
    return await inTransaction(deps, async (t) => {
      const access = await loadOrganizationAccess({ db: t.tx, actor, organizationId, forUpdate: true });
      requireOrganizationPermission({ access, permission: "can_manage_members" });
      const user = await findUserByEmail({ db: t.tx, email: options.email });
      // A member already is told so, not that the organization or their list of organizations is full.
      if (await organizationMembersCollection.findOne(t.tx, memberWhere(organizationId, user.id)))
        throw new AppError("ALREADY_MEMBER", "This user is already a member");
      await requireRoomInScope({ t, scope: "organization", id: organizationId, cap: MAX_ORGANIZATION_MEMBERS });
      await requireRoomForOrganizationMembership({ t, userId: user.id });
      const permissions = { ...NO_ORGANIZATION_PERMISSIONS, ...options.permissions };
      const member = await organizationMembersCollection.insert(t.tx, { organizationId, userId: user.id, permissions });
      await scopeInvitations().endFor({ t, kind: "organization", scopeId: organizationId, email: user.doc.email });
      const scope = { kind: "organization" as const, id: organizationId, name: access.organization.doc.name };
      await recordAudit({
        t,
        actor,
        action: "organization.member_added",
        target: { kind: "user", id: user.id, name: user.doc.name },
        scope,
        after: { email: user.doc.email, permissions },
      });
      // Tell the new member's open pages at once (their organization and observatory lists change).
      await publishUserEvent({
        t,
        userIds: [user.id],
        event: { type: "organization.member_added", data: { organizationId, organizationName: access.organization.doc.name, permissions } },
      });
      return presentOrganizationMember({ member, user, ownerId: access.organization.doc.ownerId });
    });
  } catch (error) {
    if (isUniqueViolation({ error, constraint: "organization_members_org_user_key" })) throw new AppError("ALREADY_MEMBER", "This user is already a member");
    throw error;
  }
}

export async function updateOrganizationMember(options: {
  deps: Deps;
  actor: UserActor;
  organizationId: string;
  userId: string;
  permissions: PermissionsInput;
}) {
  const { deps, actor, organizationId, userId } = options;
  return inTransaction(deps, async (t) => {
    const access = await loadOrganizationAccess({ db: t.tx, actor, organizationId, forUpdate: true });
    requireOrganizationPermission({ access, permission: "can_manage_members" });
    const existing = await organizationMembersCollection.findOne(t.tx, memberWhere(organizationId, userId));
    if (!existing) throw notAMember();
    if (access.organization.doc.ownerId === userId) throw new AppError("OWNER_PERMISSIONS_FIXED", "The owner always has every permission");
    const updated = await organizationMembersCollection.update(
      t.tx,
      existing.id,
      (doc) => ({ ...doc, permissions: { ...doc.permissions, ...options.permissions } }),
      { seen: existing },
    );
    // Gone since it was read: answer as if it had never been there, rather than succeed on nothing.
    if (!updated) throw notAMember();
    const users = await loadUsersById({ db: t.tx, ids: [userId] });
    const user = users.get(userId)!;
    const scope = { kind: "organization" as const, id: organizationId, name: access.organization.doc.name };
    await recordAudit({
      t,
      actor,
      action: "organization.member_permissions_updated",
      target: { kind: "user", id: userId, name: user.doc.name },
      scope,
      before: existing.doc.permissions,
      after: updated.doc.permissions,
    });
    return presentOrganizationMember({ member: updated, user, ownerId: access.organization.doc.ownerId });
  });
}

/** `can_manage_members` removes anyone but the owner; any member may leave. */
export async function removeOrganizationMember(options: { deps: Deps; actor: UserActor; organizationId: string; userId: string }) {
  const { deps, actor, organizationId, userId } = options;
  await inTransaction(deps, async (t) => {
    // Locked, so the owner checked here stays the owner: a transfer to this member waits, then finds them gone.
    const access = await loadOrganizationAccess({ db: t.tx, actor, organizationId, forUpdate: true });
    if (userId !== actor.id) requireOrganizationPermission({ access, permission: "can_manage_members" });
    const existing = await organizationMembersCollection.findOne(t.tx, memberWhere(organizationId, userId));
    if (!existing) throw notAMember();
    if (access.organization.doc.ownerId === userId) throw new AppError("OWNER_CANNOT_BE_REMOVED", "Transfer ownership before the owner can leave");
    if (!(await organizationMembersCollection.remove(t.tx, existing.id))) throw notAMember();
    const user = (await loadUsersById({ db: t.tx, ids: [userId] })).get(userId);
    if (user) await scopeInvitations().endFor({ t, kind: "organization", scopeId: organizationId, email: user.doc.email });
    const scope = { kind: "organization" as const, id: organizationId, name: access.organization.doc.name };
    await publishUserEvent({
      t,
      userIds: [userId],
      event: { type: "organization.member_removed", data: { organizationId, organizationName: access.organization.doc.name } },
    });
    await recordAudit({
      t,
      actor,
      action: userId === actor.id ? "organization.member_left" : "organization.member_removed",
      target: { kind: "user", id: userId, name: user?.doc.name ?? null },
      scope,
      before: { permissions: existing.doc.permissions },
    });
  });
}

/**
 * Owner only, to a current member who may own one more organization (MAX_OWNED_ORGANIZATIONS); the previous owner
 * stays a member with every permission. An owner is always a member of what they own (creation makes them one and
 * they cannot be removed), but an organization whose owner has no member row (written before that held, or by hand)
 * gets it back here, within the caps as any addition: the organization's member cap and the previous owner's
 * memberships; at either the transfer is 409 CONFLICT and nothing changes.
 */
export async function transferOrganizationOwnership(options: { deps: Deps; actor: UserActor; organizationId: string; userId: string }) {
  const { deps, actor, organizationId, userId } = options;
  return inTransaction(deps, async (t) => {
    // Lock the organization row first, so two transfers cannot both see the old owner, and the heir cannot be
    // removed (which takes the same lock) between the check below and the change of owner.
    const access = await loadOrganizationAccess({ db: t.tx, actor, organizationId, forUpdate: true });
    if (!access.isOwner) throw new AppError("FORBIDDEN", "Only the owner may transfer ownership");
    const notHeir = () => new AppError("NOT_A_MEMBER", "Ownership can only go to a current member");
    const target = await organizationMembersCollection.findOne(t.tx, memberWhere(organizationId, userId));
    if (!target) throw notHeir();
    if (userId === actor.id) return presentOrganization(access.organization);
    const previous = await organizationMembersCollection.findOne(t.tx, memberWhere(organizationId, actor.id));
    // Both accounts' rows are locked below (the heir's for the owned cap, the previous owner's for the memberships
    // cap): in id order, so that two transfers between the same two people in opposite directions cannot deadlock.
    if (!previous) await lockUsersInOrder({ t, ids: [actor.id, userId] });
    await requireRoomForOwnedOrganization({ t, userId, asked: "for them" });
    const everything = (doc: OrganizationMemberDoc) => ({ ...doc, permissions: ALL_ORGANIZATION_PERMISSIONS });
    if (previous) await organizationMembersCollection.update(t.tx, previous.id, everything, { seen: previous });
    else {
      // Counted under the organization's row lock (held above) and the previous owner's, as an addition is.
      await requireRoomInScope({ t, scope: "organization", id: organizationId, cap: MAX_ORGANIZATION_MEMBERS });
      await requireRoomForOrganizationMembership({ t, userId: actor.id });
      await organizationMembersCollection.insert(t.tx, { organizationId, userId: actor.id, permissions: ALL_ORGANIZATION_PERMISSIONS });
    }
    // The heir's membership gone since it was read: the transaction rolls back, the owner stays.
    if (!(await organizationMembersCollection.update(t.tx, target.id, everything, { seen: target }))) throw notHeir();
    const updated = await organizationsCollection.update(t.tx, organizationId, (doc) => ({ ...doc, ownerId: userId }), { seen: access.organization });
    if (!updated) throw new AppError("NOT_FOUND", "No such organization");
    const newOwner = (await loadUsersById({ db: t.tx, ids: [userId] })).get(userId);
    const scope = { kind: "organization" as const, id: organizationId, name: updated.doc.name };
    await recordAudit({
      t,
      actor,
      action: "organization.ownership_transferred",
      target: { kind: "user", id: userId, name: newOwner?.doc.name ?? null },
      scope,
      before: { ownerId: actor.id },
      after: { ownerId: userId },
    });
    return presentOrganization(updated);
  });
}
