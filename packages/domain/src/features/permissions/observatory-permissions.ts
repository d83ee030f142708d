import { closePermissions } from "@meridian/rules";
import type { UserActor } from "../../platform/actor";
import { hasAnyObservatoryGrant, isOrganizationAdmin } from "./grant-predicates";
import { observatoryPermissionKeys, type Executor, type ObservatoryPermissions, type OrganizationPermissions } from "@meridian/db";
import { sql, type SQL } from "drizzle-orm";
import { AppError } from "../../platform/errors";

export type ObservatoryPermission = (typeof observatoryPermissionKeys)[number];

export type PermissionSource =
  | { kind: "serverAdmin"; permissions: ObservatoryPermissions }
  | { kind: "owner"; permissions: ObservatoryPermissions }
  | { kind: "direct"; permissions: ObservatoryPermissions }
  | { kind: "organization"; organizationId: string; role: "owner" | "admin" | "member"; permissions: ObservatoryPermissions };

export interface ObservatoryAccess extends ObservatoryPermissions {
  sources: PermissionSource[];
}

export const ALL_OBSERVATORY_PERMISSIONS: ObservatoryPermissions = { can_view: true, can_observe: true, can_operate: true, can_admin: true };
export const NO_OBSERVATORY_PERMISSIONS: ObservatoryPermissions = { can_view: false, can_observe: false, can_operate: false, can_admin: false };

const intersect = (a: ObservatoryPermissions, b: ObservatoryPermissions): ObservatoryPermissions =>
  Object.fromEntries(observatoryPermissionKeys.map((key) => [key, a[key] && b[key]])) as ObservatoryPermissions;

const union = (grants: ObservatoryPermissions[]): ObservatoryPermissions =>
  Object.fromEntries(observatoryPermissionKeys.map((key) => [key, grants.some((grant) => grant[key])])) as ObservatoryPermissions;

/** The spec's table: owners and admins of the organization inherit can_admin + can_operate, members can_view + can_observe. */
export function inheritedFromOrganizationRole(role: "owner" | "admin" | "member"): ObservatoryPermissions {
  return role === "member"
    ? { can_view: true, can_observe: true, can_operate: false, can_admin: false }
    : { can_view: false, can_observe: false, can_operate: true, can_admin: true };
}

export function organizationRole(options: { isOwner: boolean; permissions: OrganizationPermissions }): "owner" | "admin" | "member" {
  const { isOwner, permissions } = options;
  if (isOwner) return "owner";
  return isOrganizationAdmin(permissions) ? "admin" : "member";
}

type AccessRow = {
  observatory_id: string;
  /** `exists`: asked for a server admin, the observatory exists (and grants nothing by itself). */
  source: "owner" | "direct" | "organization" | "exists";
  grant: ObservatoryPermissions | null;
  organization_id: string | null;
  org_owner: boolean | null;
  member_permissions: OrganizationPermissions | null;
};

/**
 * SQL: the observatory whose id is in `column` has not been removed. A removed observatory keeps its
 * row (its observations' readers and references need it) but leaves every list and every route of its own.
 */
export const observatoryNotRemoved = (column: string): SQL =>
  sql`not exists (select 1 from observatories removed where removed.id = ${sql.raw(column)} and removed.doc->>'removedAt' is not null)`;

/**
 * The one answer to "what may this user do on these observatories": direct grants, ownership
 * by the user, and for each member organization (an owning organization is a member with all
 * four permissions) what the user's role there inherits, capped by the organization's grant.
 * One query for any number of observatories, so lists never ask per row. Server admins may do
 * everything. Omit `observatoryIds` to get every observatory the user has any access to.
 */
export async function resolveObservatoryAccess(options: {
  db: Executor;
  userId: string;
  isServerAdmin: boolean;
  observatoryIds?: string[];
  /** Answer for removed observatories too, as before their removal: what decides who reads their observations. */
  includeRemoved?: boolean;
}): Promise<Map<string, ObservatoryAccess>> {
  const { db, userId } = options;
  const ids = options.observatoryIds;
  if (ids && ids.length === 0) return new Map();
  const only = (column: string) => (ids ? sql`and ${sql.raw(column)} in ${ids}` : sql``);
  const rows = await db.execute<AccessRow>(sql`
    select * from (
    select o.id as observatory_id, 'owner' as source, null::jsonb as grant, null as organization_id,
           null::boolean as org_owner, null::jsonb as member_permissions
      from observatories o
     where o.owner_kind = 'user' and o.owner_id = ${userId} ${only("o.id")}
    union all
    select m.observatory_id, 'direct', m.doc->'permissions', null, null, null
      from observatory_members m
     where m.member_kind = 'user' and m.member_id = ${userId} ${only("m.observatory_id")}
    union all
    select m.observatory_id, 'organization', m.doc->'permissions', m.member_id, org.owner_id = ${userId}, om.doc->'permissions'
      from organization_members om
      join observatory_members m on m.member_kind = 'organization' and m.member_id = om.organization_id
      join organizations org on org.id = om.organization_id
     where om.user_id = ${userId} ${only("m.observatory_id")}
    ${options.isServerAdmin && ids ? sql`union all select o.id, 'exists', null, null, null, null from observatories o where o.id in ${ids}` : sql``}
    ) access where ${options.includeRemoved ? sql`true` : observatoryNotRemoved("access.observatory_id")}
  `);

  const sourcesById = new Map<string, PermissionSource[]>();
  const push = (id: string, source: PermissionSource) => {
    const list = sourcesById.get(id) ?? [];
    list.push(source);
    sourcesById.set(id, list);
  };
  const existing = new Set<string>();
  for (const row of rows) {
    if (row.source === "exists") existing.add(row.observatory_id);
    else if (row.source === "owner") push(row.observatory_id, { kind: "owner", permissions: ALL_OBSERVATORY_PERMISSIONS });
    else if (row.source === "direct") push(row.observatory_id, { kind: "direct", permissions: closePermissions(row.grant!) });
    else {
      const role = organizationRole({ isOwner: Boolean(row.org_owner), permissions: row.member_permissions! });
      const permissions = intersect(closePermissions(inheritedFromOrganizationRole(role)), closePermissions(row.grant!));
      push(row.observatory_id, { kind: "organization", organizationId: row.organization_id!, role, permissions });
    }
  }

  const result = new Map<string, ObservatoryAccess>();
  const adminSource: PermissionSource = { kind: "serverAdmin", permissions: ALL_OBSERVATORY_PERMISSIONS };
  for (const id of new Set([...(ids ?? []), ...sourcesById.keys()])) {
    const sources = sourcesById.get(id) ?? [];
    // A server admin may do anything to every observatory that exists; one that does not stays 404.
    if (options.isServerAdmin && (!ids || existing.has(id))) sources.unshift(adminSource);
    const effective = union(sources.map((source) => source.permissions));
    if (effective.can_view || sources.length > 0) result.set(id, { ...effective, sources });
  }
  return result;
}

/** Loads the actor's access to one observatory; without can_view, or once it is removed, it does not exist for them (404). */
export async function requireObservatoryPermission(options: {
  db: Executor;
  actor: UserActor;
  observatoryId: string;
  permission: ObservatoryPermission;
  /** For what stays readable after removal (its history), to those who could read it before. */
  includeRemoved?: boolean;
}): Promise<ObservatoryAccess> {
  const { db, actor, observatoryId, includeRemoved } = options;
  const access = (
    await resolveObservatoryAccess({ db, userId: actor.id, isServerAdmin: actor.isServerAdmin, observatoryIds: [observatoryId], includeRemoved })
  ).get(observatoryId);
  if (!access?.can_view) throw new AppError("NOT_FOUND", "No such observatory");
  if (!access[options.permission]) throw new AppError("FORBIDDEN", `This needs ${options.permission} on the observatory`);
  return access;
}

/**
 * One page of the observatories a user can view, in id order, without resolving every
 * observatory's permissions. Under the permission order, a user sees an observatory exactly
 * when they own it or hold any source (direct or through a member organization) whose grant
 * has at least one permission: every organization role inherits a non-empty set, and the
 * closure of any non-empty grant contains can_view.
 */
export async function listViewableObservatoryIds(options: { db: Executor; userId: string; after?: string; limit: number }): Promise<string[]> {
  const { db, userId } = options;
  const after = options.after ? sql`and id > ${options.after}` : sql``;
  const rows = await db.execute<{ id: string }>(sql`
    select id from (${viewableObservatoryIds(userId)}) visible (id)
    where ${observatoryNotRemoved("visible.id")} ${after}
    order by id
    limit ${options.limit}`);
  return rows.map((row) => row.id);
}

/**
 * The ids of every observatory the user can view, as a subquery (see listViewableObservatoryIds for the rule). Removed
 * observatories are in it: it says who reads their observations; lists of observatories leave them out.
 */
export function viewableObservatoryIds(userId: string): SQL {
  return sql`
      select o.id from observatories o where o.owner_kind = 'user' and o.owner_id = ${userId}
      union
      select m.observatory_id from observatory_members m
       where m.member_kind = 'user' and m.member_id = ${userId} and ${hasAnyObservatoryGrant("m.doc->'permissions'")}
      union
      select m.observatory_id from organization_members om
        join observatory_members m on m.member_kind = 'organization' and m.member_id = om.organization_id
       where om.user_id = ${userId} and ${hasAnyObservatoryGrant("m.doc->'permissions'")}`;
}

/** Every user who can view the observatory, by the same rule the other way round (server admins aside). */
export async function observatoryViewerIds(options: { db: Executor; observatoryId: string }): Promise<string[]> {
  const { db, observatoryId } = options;
  const rows = await db.execute<{ user_id: string }>(sql`
    select o.owner_id as user_id from observatories o where o.id = ${observatoryId} and o.owner_kind = 'user'
    union
    select m.member_id from observatory_members m
     where m.observatory_id = ${observatoryId} and m.member_kind = 'user' and ${hasAnyObservatoryGrant("m.doc->'permissions'")}
    union
    select om.user_id from observatory_members m
      join organization_members om on om.organization_id = m.member_id
     where m.observatory_id = ${observatoryId} and m.member_kind = 'organization' and ${hasAnyObservatoryGrant("m.doc->'permissions'")}`);
  return rows.map((row) => row.user_id);
}
