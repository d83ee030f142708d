import { isOrganizationAdminMembership } from "../permissions";
import { sql, type SQL } from "drizzle-orm";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { resolveObservatoryAccess } from "../permissions";
import { expireDueAnnouncements } from "./lifecycle";
import { pageOfAnnouncements } from "./queries";
import type { AnnouncementListQuery } from "./schemas";
import type { ScopedKind } from "./scope-access";

type Scope = ScopedKind | "system";

/**
 * The scopes whose announcements the actor manages: everything for server admins (null),
 * otherwise the observatories they administer, organizations they manage and projects they
 * own or administer.
 */
async function managedScopeIds(deps: Deps, actor: UserActor, scope: Scope): Promise<string[] | null> {
  if (actor.isServerAdmin) return null;
  switch (scope) {
    case "system":
      return [];
    case "observatory": {
      const access = await resolveObservatoryAccess({ db: deps.db, userId: actor.id, isServerAdmin: false });
      return [...access].filter(([, permissions]) => permissions.can_admin).map(([id]) => id);
    }
    case "organization": {
      const rows = await deps.db.execute<{ id: string }>(sql`
        select om.organization_id as id from organization_members om
         where om.user_id = ${actor.id}
           and ${isOrganizationAdminMembership("om")}`);
      return rows.map((row) => row.id);
    }
    case "project": {
      const rows = await deps.db.execute<{ id: string }>(sql`
        select p.id from projects p where p.owner_id = ${actor.id}
        union select pm.project_id from project_members pm where pm.user_id = ${actor.id} and pm.doc->>'role' = 'admin'`);
      return rows.map((row) => row.id);
    }
  }
}

function scopeWhere(scope: Scope, ids: string[] | null): SQL | null {
  if (ids === null) return sql`a.scope = ${scope}`;
  if (ids.length === 0) return null;
  return sql`a.scope = ${scope} and a.scope_id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`;
}

/** The announcements page: one scope's announcements the actor manages, newest first. */
export async function listManagedAnnouncements(options: { deps: Deps; actor: UserActor; scope: Scope; query: AnnouncementListQuery }) {
  const { deps, actor, scope, query } = options;
  const where = scopeWhere(scope, await managedScopeIds(deps, actor, scope));
  if (!where) return { items: [], nextCursor: null };
  await expireDueAnnouncements({ deps });
  return pageOfAnnouncements({ deps, where, query, includeTargets: true });
}

/**
 * Statistics per scope the actor manages: counts by status and acknowledgments still
 * outstanding on active announcements. Server admins get every scope.
 */
export async function getAnnouncementStats(options: { deps: Deps; actor: UserActor }) {
  const { deps, actor } = options;
  await expireDueAnnouncements({ deps });
  const scopes: Scope[] = ["system", "observatory", "organization", "project"];
  const wheres = (await Promise.all(scopes.map(async (scope) => scopeWhere(scope, await managedScopeIds(deps, actor, scope))))).filter(
    (where): where is SQL => where !== null,
  );
  if (wheres.length === 0) return { scopes: [] };
  const rows = await deps.db.execute<{
    scope: Scope;
    scope_id: string | null;
    scope_name: string | null;
    active: number;
    acknowledged: number;
    expired: number;
    cancelled: number;
    pending: number;
  }>(sql`
    select a.scope, a.scope_id, max(a.doc->>'scopeName') as scope_name,
           count(*) filter (where a.status = 'active')::int as active,
           count(*) filter (where a.status = 'acknowledged')::int as acknowledged,
           count(*) filter (where a.status = 'expired')::int as expired,
           count(*) filter (where a.status = 'cancelled')::int as cancelled,
           coalesce(sum(a.recipient_count - a.acknowledged_count) filter (where a.status = 'active'), 0)::int as pending
      from announcements a
     where (${sql.join(wheres, sql` or `)})
     group by a.scope, a.scope_id
     order by a.scope, scope_name nulls first
     limit 1000`);
  return {
    scopes: rows.map((row) => ({
      scope: row.scope,
      scopeId: row.scope_id,
      scopeName: row.scope_name,
      active: row.active,
      acknowledged: row.acknowledged,
      expired: row.expired,
      cancelled: row.cancelled,
      pendingAcknowledgments: row.pending,
    })),
  };
}

/** `live`: which rows still count (a removed observatory leaves every list, a disabled account the users'). */
const OPTION_QUERIES: Record<
  "users" | "observatories" | "organizations" | "projects",
  { label: string; detail: string; search: string; table: string; live?: string }
> = {
  // A disabled account receives no announcement, so it is not offered.
  users: {
    table: "users",
    label: "doc->>'name'",
    detail: "doc->>'email'",
    search: "(doc->>'name') || ' ' || email_lower",
    live: "not coalesce((doc->>'disabled')::boolean, false)",
  },
  observatories: { table: "observatories", label: "doc->>'name'", detail: "null", search: "doc->>'name'", live: "doc->>'removedAt' is null" },
  organizations: { table: "organizations", label: "doc->>'name'", detail: "doc->>'shortName'", search: "(doc->>'name') || ' ' || short_name_lower" },
  projects: { table: "projects", label: "doc->>'name'", detail: "doc->>'status'", search: "doc->>'name'" },
};

/** The system announcement form's pickers: search one target kind by name (or email). Server admins only. */
export async function listAnnouncementTargetOptions(options: {
  deps: Deps;
  actor: UserActor;
  kind: keyof typeof OPTION_QUERIES;
  search?: string;
  limit?: number;
}) {
  const { deps, actor, kind } = options;
  if (!actor.isServerAdmin) throw new AppError("FORBIDDEN", "System announcements are managed by server administrators");
  const spec = OPTION_QUERIES[kind];
  const pattern = options.search?.trim()
    ? `%${options.search
        .trim()
        .toLowerCase()
        .replace(/[\\%_]/g, (char) => `\\${char}`)}%`
    : null;
  const live = sql.raw(spec.live ?? "true");
  const filter = pattern ? sql`where ${live} and lower(${sql.raw(spec.search)}) like ${pattern}` : sql`where ${live}`;
  const rows = await deps.db.execute<{ id: string; label: string; detail: string | null }>(sql`
    select id, ${sql.raw(spec.label)} as label, ${sql.raw(spec.detail)} as detail from ${sql.raw(spec.table)} ${filter}
     order by lower(${sql.raw(spec.label)}), id limit ${options.limit ?? 20}`);
  const [total] = await deps.db.execute<{ count: number }>(sql`select count(*)::int as count from ${sql.raw(spec.table)} where ${live}`);
  return { items: rows.map((row) => ({ id: row.id, label: row.label, detail: row.detail })), total: total?.count ?? 0 };
}
