import {
  observatoriesCollection,
  observatoryHistoryCollection,
  observatoryMembersCollection,
  organizationsCollection,
  tables,
  usersCollection,
  type Executor,
  type ObservatoryDoc,
  type ObservatoryMemberDoc,
  type StoredDocument,
} from "@meridian/db";
import { and, asc, count, desc, eq, getTableColumns, inArray, isNull, sql } from "drizzle-orm";
import { refuseAtCap } from "../../platform/caps";
import { recordAudit } from "../audit";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { loadOrganizationAccess, requireOrganizationPermission } from "../organizations";
import { ALL_OBSERVATORY_PERMISSIONS, listViewableObservatoryIds, requireObservatoryPermission, resolveObservatoryAccess } from "../permissions";
import { loadUsersById } from "../users";
import { loadOwnerNames } from "./owner-names";
import { lastSightings } from "./presence";
import { presentObservatory } from "./present";
import type { ObservatoryCreate } from "./schemas";
import { observatoryTimeZone, observatoryTiming, timeZoneAfter } from "./time-and-timing";
import { inTransaction, type InTransaction } from "../../platform/transaction";
import { instantKey, keysetCursor } from "../../platform/validation/keyset-cursor";

export const observatoryMemberWhere = ({ observatoryId, kind, memberId }: { observatoryId: string; kind: "user" | "organization"; memberId: string }) =>
  and(
    eq(tables.observatoryMembers.observatoryId, observatoryId),
    eq(tables.observatoryMembers.memberKind, kind),
    eq(tables.observatoryMembers.memberId, memberId),
  )!;

/** The settings an owner can change, as history records them before and after. */
export const settingsOf = (doc: ObservatoryDoc) => ({
  name: doc.name,
  location: doc.location ?? null,
  dispatchEnabled: doc.dispatchEnabled,
  timeZone: observatoryTimeZone({ doc }),
  settings: observatoryTiming({ doc }),
});

async function ownerName(db: Executor, owner: { kind: "user" | "organization"; id: string }): Promise<string | null> {
  if (owner.kind === "organization") return (await organizationsCollection.get(db, owner.id))?.doc.name ?? null;
  const [user] = await db.select({ doc: tables.users.doc }).from(tables.users).where(eq(tables.users.id, owner.id)).limit(1);
  return user?.doc.name ?? null;
}

/**
 * One history entry, stamped with the statement's clock rather than the transaction's start:
 * entries written by one transaction (created, then organization_added) keep their order.
 */
export async function recordHistory(options: {
  t: Pick<InTransaction, "tx">;
  observatoryId: string;
  type: string;
  actorId: string | null;
  data: Record<string, unknown>;
}) {
  const { t, ...entry } = options;
  await observatoryHistoryCollection.insert(t.tx, entry, undefined, { stampAtStatement: true });
}

/**
 * The membership row, locked until the transaction ends, or undefined if there is none. Taken last: after the
 * observatory's row and any organization's row, the order of the transfer and of the organization's deletion.
 */
export async function lockObservatoryMember(options: {
  t: Pick<InTransaction, "tx">;
  observatoryId: string;
  kind: "user" | "organization";
  memberId: string;
}): Promise<StoredDocument<ObservatoryMemberDoc> | undefined> {
  const { t, ...member } = options;
  const { observatoryMembers } = tables;
  const [row] = await t.tx
    .select({ id: observatoryMembers.id, doc: observatoryMembers.doc, createdAt: observatoryMembers.createdAt, updatedAt: observatoryMembers.updatedAt })
    .from(observatoryMembers)
    .where(observatoryMemberWhere(member))
    .for("update")
    .limit(1);
  return row;
}

/**
 * Direct user members, and member organizations, one observatory may have: its member list is then
 * bounded, and returned whole (the owning user beside them). The next is 409 CONFLICT until one
 * leaves.
 */
export const MAX_OBSERVATORY_USER_MEMBERS = 10_000;
export const MAX_OBSERVATORY_ORGANIZATION_MEMBERS = 10_000;

/**
 * Refuses one more member of `kind` past its cap, counted under the observatory's row, which the
 * caller holds locked against other additions (FOR UPDATE, or FOR NO KEY UPDATE for an invitation's
 * acceptance): additions to one observatory count one after another.
 */
export async function requireRoomForObservatoryMember(options: { t: Pick<InTransaction, "tx">; observatoryId: string; kind: "user" | "organization" }) {
  const { t, observatoryId, kind } = options;
  const { observatoryMembers } = tables;
  const cap = kind === "user" ? MAX_OBSERVATORY_USER_MEMBERS : MAX_OBSERVATORY_ORGANIZATION_MEMBERS;
  await refuseAtCap({
    t,
    table: observatoryMembers,
    where: and(eq(observatoryMembers.observatoryId, observatoryId), eq(observatoryMembers.memberKind, kind))!,
    cap,
    refusal: `The observatory has ${cap} ${kind === "user" ? "user members" : "member organizations"}, the most one may have; remove one first`,
  });
}

/**
 * Makes an organization a member with every permission (an owning organization always has them), inserting the
 * membership when there is none. The caller holds the observatory's row lock.
 */
async function grantOrganizationFullMembership(options: { t: Pick<InTransaction, "tx">; observatoryId: string; organizationId: string }) {
  const { t, observatoryId, organizationId } = options;
  const existing = await lockObservatoryMember({ t, observatoryId, kind: "organization", memberId: organizationId });
  const raised =
    existing &&
    (await observatoryMembersCollection.update(t.tx, existing.id, (doc) => ({ ...doc, permissions: ALL_OBSERVATORY_PERMISSIONS }), { seen: existing }));
  if (raised) return existing.doc.permissions;
  await requireRoomForObservatoryMember({ t, observatoryId, kind: "organization" });
  await observatoryMembersCollection.insert(t.tx, {
    observatoryId,
    memberKind: "organization",
    memberId: organizationId,
    permissions: ALL_OBSERVATORY_PERMISSIONS,
  });
  return undefined;
}

/**
 * Live (not removed) observatories one user, and one organization, may own, created or handed
 * over to them: the next is 409 CONFLICT until one is removed or handed over. A removed one keeps
 * its row for its observations' sake, so it no longer counts.
 */
export const MAX_OWNED_OBSERVATORIES = 1_000;
export const MAX_ORGANIZATION_OBSERVATORIES = 10_000;

/**
 * Refuses one more observatory for `owner` past its cap, counted under the owner's row lock so that
 * creations and transfers to one owner count one after another and none passes the cap beside
 * another. An organization's row the caller has locked already (FOR UPDATE, as its deletion does);
 * a user's is locked here, after the observatory's row (scope before account, the order of an
 * invitation's acceptance).
 */
async function requireRoomForObservatory(options: {
  t: Pick<InTransaction, "tx">;
  owner: { kind: "user" | "organization"; id: string };
  asked: "by them" | "for them";
}) {
  const { t, owner, asked } = options;
  if (owner.kind === "user" && !(await usersCollection.get(t.tx, owner.id, { forUpdate: true }))) throw new AppError("NOT_FOUND", "No such user");
  const { observatories } = tables;
  const [row] = await t.tx
    .select({ count: count() })
    .from(observatories)
    .where(and(eq(observatories.ownerKind, owner.kind), eq(observatories.ownerId, owner.id), isNull(sql`${observatories.doc}->>'removedAt'`)));
  const cap = owner.kind === "user" ? MAX_OWNED_OBSERVATORIES : MAX_ORGANIZATION_OBSERVATORIES;
  if ((row?.count ?? 0) < cap) return;
  const holder = {
    user: { "by them": "You own", "for them": "The new owner already owns" },
    organization: { "by them": "The organization owns", "for them": "The organization already owns" },
  }[owner.kind][asked];
  const most = owner.kind === "user" ? "the most one account may own" : "the most one organization may own";
  throw new AppError("CONFLICT", `${holder} ${cap} observatories, ${most}; remove or transfer one first`);
}

export async function createObservatory(options: { deps: Deps; actor: UserActor; input: ObservatoryCreate }) {
  const { deps, actor, input } = options;
  return inTransaction(deps, async (t) => {
    let owner: { kind: "user" | "organization"; id: string } = { kind: "user", id: actor.id };
    let organizationName: string | undefined;
    if (input.organizationId) {
      // Serialized with the organization's deletion, which counts what it owns under this lock.
      await organizationsCollection.get(t.tx, input.organizationId, { forUpdate: true });
      const access = await loadOrganizationAccess({ db: t.tx, actor, organizationId: input.organizationId });
      requireOrganizationPermission({ access, permission: "can_manage_observatories" });
      owner = { kind: "organization", id: input.organizationId };
      organizationName = access.organization.doc.name;
    }
    await requireRoomForObservatory({ t, owner, asked: "by them" });
    const observatory = await observatoriesCollection.insert(t.tx, {
      name: input.name,
      owner,
      location: input.location ?? null,
      dispatchEnabled: input.dispatchEnabled ?? true,
      connection: { online: false, pluginVersion: null, lastSeenAt: null },
      timeZone: timeZoneAfter({ doc: { location: null }, given: input.timeZone, location: input.location ?? null }),
      settings: observatoryTiming({ doc: { settings: input.settings } }),
      createdAt: t.now().toISOString(),
    });
    const scope = { kind: "observatory" as const, id: observatory.id, name: input.name };
    await recordHistory({
      t,
      observatoryId: observatory.id,
      type: "created",
      actorId: actor.id,
      data: { name: input.name, owner, ownerName: organizationName ?? actor.name, settings: settingsOf(observatory.doc) },
    });
    if (owner.kind === "organization") {
      await grantOrganizationFullMembership({ t, observatoryId: observatory.id, organizationId: owner.id });
      await recordHistory({
        t,
        observatoryId: observatory.id,
        type: "organization_added",
        actorId: actor.id,
        data: { organizationId: owner.id, organizationName, permissionsBefore: null, permissionsAfter: ALL_OBSERVATORY_PERMISSIONS, owning: true },
      });
    }
    await recordAudit({ t, actor, action: "observatory.created", target: scope, scope, after: { name: input.name, owner } });
    return presentObservatory({ observatory, myPermissions: ALL_OBSERVATORY_PERMISSIONS, ownerName: organizationName ?? actor.name });
  });
}

/**
 * Observatories the actor can view, with the actor's permissions: the page's ids, its rows,
 * and the permissions of just those rows; three queries whatever the count, work per page.
 */
export async function listObservatories(options: { deps: Deps; actor: UserActor; limit: number; cursor?: string }) {
  const { deps, actor, limit } = options;
  const { observatories } = tables;
  const [afterId] = options.cursor ? observatoryPosition.decode(options.cursor) : [];
  const after = afterId ? sql`${observatories.id} > ${afterId}` : undefined;
  let rows;
  let access;
  if (actor.isServerAdmin) {
    rows = await deps.db
      .select()
      .from(observatories)
      .where(and(after, isNull(sql`${observatories.doc}->>'removedAt'`)))
      .orderBy(asc(observatories.id))
      .limit(limit + 1);
    access = await resolveObservatoryAccess({ db: deps.db, userId: actor.id, isServerAdmin: true, observatoryIds: rows.map((row) => row.id) });
  } else {
    const visible = await listViewableObservatoryIds({ db: deps.db, userId: actor.id, after: afterId, limit: limit + 1 });
    rows = visible.length === 0 ? [] : await deps.db.select().from(observatories).where(inArray(observatories.id, visible)).orderBy(asc(observatories.id));
    access = await resolveObservatoryAccess({ db: deps.db, userId: actor.id, isServerAdmin: false, observatoryIds: visible.slice(0, limit) });
  }
  const page = rows.slice(0, limit);
  const owners = await loadOwnerNames({ db: deps.db, owners: page.map((row) => row.doc.owner) });
  const sightings = await lastSightings({ db: deps.db, observatoryIds: page.map((row) => row.id) });
  return {
    items: page.map((row) => {
      const { sources: _sources, ...permissions } = access.get(row.id)!;
      return presentObservatory({ observatory: row, myPermissions: permissions, ownerName: owners.nameOf(row.doc.owner), lastSighting: sightings.get(row.id) });
    }),
    nextCursor: rows.length > limit ? observatoryPosition.encode(page[page.length - 1]!.id) : null,
  };
}

// The list is in id order, so an id alone places a cursor; it is still wrapped, so that garbage is told apart.
const observatoryPosition = keysetCursor({ list: "observatories", parts: ["id"] });
const historyPosition = keysetCursor({ list: "observatory-history", parts: ["instant", "id"] });

export async function getObservatory(options: { deps: Deps; actor: UserActor; observatoryId: string }) {
  const { deps, actor, observatoryId } = options;
  const access = await requireObservatoryPermission({ db: deps.db, actor, observatoryId, permission: "can_view" });
  const observatory = await observatoriesCollection.get(deps.db, observatoryId);
  if (!observatory) throw new AppError("NOT_FOUND", "No such observatory");
  const { sources: _sources, ...permissions } = access;
  const owners = await loadOwnerNames({ db: deps.db, owners: [observatory.doc.owner] });
  const lastSighting = (await lastSightings({ db: deps.db, observatoryIds: [observatoryId] })).get(observatoryId);
  return presentObservatory({ observatory, myPermissions: permissions, ownerName: owners.nameOf(observatory.doc.owner), lastSighting });
}

export async function getMyObservatoryPermissions(options: { deps: Deps; actor: UserActor; observatoryId: string }) {
  const { deps, actor, observatoryId } = options;
  const access = await requireObservatoryPermission({ db: deps.db, actor, observatoryId, permission: "can_view" });
  return access;
}

/**
 * The owner (a user, or the owner of the owning organization) or a server admin transfers.
 * A user must already be a member; an organization becomes a member with every permission.
 * The previous owner keeps full access: a user as a direct member, an organization as member.
 */
export async function transferObservatoryOwnership(options: {
  deps: Deps;
  actor: UserActor;
  observatoryId: string;
  to: { kind: "user" | "organization"; id: string };
}) {
  const { deps, actor, observatoryId, to } = options;
  return inTransaction(deps, async (t) => {
    const observatory = await observatoriesCollection.get(t.tx, observatoryId, { forUpdate: true });
    if (!observatory) throw new AppError("NOT_FOUND", "No such observatory");
    await requireObservatoryPermission({ db: t.tx, actor, observatoryId, permission: "can_view" });
    const previous = observatory.doc.owner;
    let isOwner = previous.kind === "user" && previous.id === actor.id;
    if (previous.kind === "organization") {
      const organization = await organizationsCollection.get(t.tx, previous.id);
      isOwner = organization?.doc.ownerId === actor.id;
    }
    if (!isOwner && !actor.isServerAdmin) throw new AppError("FORBIDDEN", "Only the owner may transfer the observatory");
    if (previous.kind === to.kind && previous.id === to.id)
      return presentObservatory({
        observatory,
        ownerName: await ownerName(t.tx, previous),
        lastSighting: (await lastSightings({ db: t.tx, observatoryIds: [observatoryId] })).get(observatoryId),
      });

    let targetName: string | null;
    if (to.kind === "user") {
      const membership = await lockObservatoryMember({ t, observatoryId, kind: "user", memberId: to.id });
      if (!membership || !(await observatoryMembersCollection.remove(t.tx, membership.id)))
        throw new AppError("NOT_A_MEMBER", "Ownership can only go to a user who is a member of the observatory");
      // After the membership, so that a user who is none hears that first; a refusal here rolls its removal back.
      await requireRoomForObservatory({ t, owner: to, asked: "for them" });
      const user = await t.tx.select().from(tables.users).where(eq(tables.users.id, to.id)).limit(1);
      targetName = user[0]?.doc.name ?? null;
    } else {
      const organization = await organizationsCollection.get(t.tx, to.id, { forUpdate: true });
      if (!organization) throw new AppError("NOT_FOUND", "No such organization");
      await requireRoomForObservatory({ t, owner: to, asked: "for them" });
      targetName = organization.doc.name;
      const before = await grantOrganizationFullMembership({ t, observatoryId, organizationId: to.id });
      await recordHistory({
        t,
        observatoryId,
        type: before ? "organization_permissions_updated" : "organization_added",
        actorId: actor.id,
        data: {
          organizationId: to.id,
          organizationName: organization.doc.name,
          permissionsBefore: before ?? null,
          permissionsAfter: ALL_OBSERVATORY_PERMISSIONS,
          owning: true,
        },
      });
    }
    if (previous.kind === "user") {
      const existing = await observatoryMembersCollection.findOne(t.tx, observatoryMemberWhere({ observatoryId, kind: "user", memberId: previous.id }));
      if (!existing) {
        // The new owner's own membership, if any, ended above: it made room for this one.
        await requireRoomForObservatoryMember({ t, observatoryId, kind: "user" });
        await observatoryMembersCollection.insert(t.tx, { observatoryId, memberKind: "user", memberId: previous.id, permissions: ALL_OBSERVATORY_PERMISSIONS });
      }
    }
    const updated = await observatoriesCollection.update(t.tx, observatoryId, (doc) => ({ ...doc, owner: to }));
    const fromName = await ownerName(t.tx, previous);
    await recordHistory({ t, observatoryId, type: "ownership_transferred", actorId: actor.id, data: { from: previous, fromName, to, toName: targetName } });
    const scope = { kind: "observatory" as const, id: observatoryId, name: observatory.doc.name };
    await recordAudit({
      t,
      actor,
      action: "observatory.ownership_transferred",
      target: { kind: to.kind, id: to.id, name: targetName },
      scope,
      before: { owner: previous },
      after: { owner: to },
    });
    return presentObservatory({
      observatory: updated!,
      ownerName: targetName,
      lastSighting: (await lastSightings({ db: t.tx, observatoryIds: [observatoryId] })).get(observatoryId),
    });
  });
}

export async function listObservatoryHistory(options: { deps: Deps; actor: UserActor; observatoryId: string; limit: number; cursor?: string }) {
  const { deps, actor, observatoryId, limit } = options;
  // The history, its removal last, stays readable to those who could read it (contract: DELETE /observatories/{id}).
  await requireObservatoryPermission({ db: deps.db, actor, observatoryId, permission: "can_view", includeRemoved: true });
  const { observatoryHistory } = tables;
  const after = options.cursor ? historyPosition.decode(options.cursor) : undefined;
  const rows = await deps.db
    .select({ ...getTableColumns(observatoryHistory), cursorKey: instantKey(observatoryHistory.createdAt) })
    .from(observatoryHistory)
    .where(
      and(
        eq(observatoryHistory.observatoryId, observatoryId),
        // Newest first by time, then id: ids share a millisecond, transactions do not share a start time.
        after ? sql`(${observatoryHistory.createdAt}, ${observatoryHistory.id}) < (${after[0]}::timestamptz, ${after[1]})` : undefined,
      ),
    )
    .orderBy(desc(observatoryHistory.createdAt), desc(observatoryHistory.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  // Named here, not by the reader's member list: the owner, an organization's member or a server admin acts without being
  // a direct member. The history is read with can_view, as the member list is, so its readers may see these names.
  const actors = await loadUsersById({ db: deps.db, ids: page.flatMap((row) => (row.doc.actorId ? [row.doc.actorId] : [])) });
  return {
    items: page.map((row) => ({
      id: row.id,
      type: row.doc.type,
      at: row.createdAt.toISOString(),
      actorId: row.doc.actorId,
      actorName: row.doc.actorId ? (actors.get(row.doc.actorId)?.doc.name ?? null) : null,
      data: row.doc.data,
    })),
    nextCursor: rows.length > limit ? historyPosition.encode(page.at(-1)!.cursorKey, page.at(-1)!.id) : null,
  };
}
