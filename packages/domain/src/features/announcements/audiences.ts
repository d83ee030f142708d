import { hasAnyObservatoryGrant } from "../permissions";
import { observatoryNotRemoved } from "../permissions";
import type { Executor } from "@meridian/db";
import { sql, type SQL } from "drizzle-orm";
import { AppError, type FieldError } from "../../platform/errors";
import type { AnnouncementTargetsInput } from "./schemas";
import type { AnnouncementScopeRef, ScopedKind } from "./scope-access";
import { enabledUser } from "../users";

/** A set of ids as one bound parameter, however many there are. */
const idSet = (ids: string[]) => sql`(select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`;

/** `null` ids: every observatory, organization or project. */
const restrict = (column: string, ids: string[] | null) => (ids ? sql`and ${sql.raw(column)} in ${idSet(ids)}` : sql``);

/**
 * Everyone with access to the observatories: the owning user, direct members with any grant,
 * and every member of a member organization with any grant (the owning organization is such a
 * member). Mirrors `listViewableObservatoryIds`, seen from the other side.
 */
function observatoryAudience(ids: string[] | null): SQL {
  return sql`
    select o.owner_id as user_id from observatories o where o.owner_kind = 'user' and ${observatoryNotRemoved("o.id")} ${restrict("o.id", ids)}
    union all
    select m.member_id from observatory_members m
     where m.member_kind = 'user' and ${hasAnyObservatoryGrant("m.doc->'permissions'")} and ${observatoryNotRemoved("m.observatory_id")}
           ${restrict("m.observatory_id", ids)}
    union all
    select om.user_id from observatory_members m
      join organization_members om on om.organization_id = m.member_id
     where m.member_kind = 'organization' and ${hasAnyObservatoryGrant("m.doc->'permissions'")} and ${observatoryNotRemoved("m.observatory_id")}
           ${restrict("m.observatory_id", ids)}`;
}

/** Organization members; the owner holds a member row too. */
function organizationAudience(ids: string[] | null): SQL {
  return sql`select om.user_id from organization_members om where true ${restrict("om.organization_id", ids)}`;
}

function projectAudience(ids: string[] | null): SQL {
  return sql`
    select p.owner_id as user_id from projects p where true ${restrict("p.id", ids)}
    union all
    select pm.user_id from project_members pm where true ${restrict("pm.project_id", ids)}`;
}

/**
 * A disabled account cannot sign in, so it could never acknowledge: counted among the recipients it
 * would hold an announcement `active` for good (and be emailed). Only enabled accounts receive one.
 */
const enabled = enabledUser;

const audienceOf: Record<ScopedKind, (ids: string[] | null) => SQL> = {
  observatory: observatoryAudience,
  organization: organizationAudience,
  project: projectAudience,
};

/**
 * The recipients of an announcement as rows `(user_id, via)`, each enabled user once. When several
 * targets reach a user, `via` names the most specific one.
 */
export function recipientSource(options: { ref: AnnouncementScopeRef; targets?: AnnouncementTargetsInput }): SQL {
  const { ref, targets } = options;
  if (ref.scope !== "system") {
    return sql`select distinct a.user_id, 'scope'::text as via from (${audienceOf[ref.scope]([ref.scopeId])}) a
      join users u on u.id = a.user_id where ${enabled("u")}`;
  }
  const parts: SQL[] = [];
  const users = targets?.users;
  if (users && !users.all && users.ids.length)
    parts.push(sql`select u.id as user_id, 'user'::text as via, 1 as rank from users u where u.id in ${idSet(users.ids)} and ${enabled("u")}`);
  const kinds = [
    ["observatories", "observatory", 2],
    ["organizations", "organization", 3],
    ["projects", "project", 4],
  ] as const;
  for (const [key, scope, rank] of kinds) {
    const target = targets?.[key];
    if (!target || (!target.all && target.ids.length === 0)) continue;
    parts.push(
      sql`select user_id, ${scope}::text as via, ${rank}::int as rank from (${audienceOf[scope](target.all ? null : target.ids)}) ${sql.raw(scope)}_audience`,
    );
  }
  const specific =
    parts.length > 0
      ? sql`select distinct on (t.user_id) t.user_id, t.via from (${sql.join(parts, sql` union all `)}) t
          join users u on u.id = t.user_id where ${enabled("u")} order by t.user_id, t.rank`
      : null;
  // Every user: no sort of the whole set to remove duplicates, only the (usually small) specific targets are looked up for `via`.
  if (users?.all) {
    return specific
      ? sql`select u.id as user_id, coalesce(specific.via, 'all_users') as via from users u left join (${specific}) specific on specific.user_id = u.id
             where ${enabled("u")}`
      : sql`select u.id as user_id, 'all_users'::text as via from users u where ${enabled("u")}`;
  }
  return specific ?? sql`select null::text as user_id, null::text as via where false`;
}

const tableOf = { users: "users", observatories: "observatories", organizations: "organizations", projects: "projects" } as const;
/** Rows that exist but are gone for announcements: a removed observatory. */
const goneWhere: Partial<Record<keyof typeof tableOf, string>> = { observatories: "known.doc->>'removedAt' is not null" };
const nounOf = { users: "user", observatories: "observatory", organizations: "organization", projects: "project" } as const;

/** Refuses targets naming ids that do not exist, listing every one of them. */
export async function requireKnownTargets(options: { db: Executor; targets: AnnouncementTargetsInput }): Promise<void> {
  const { db, targets } = options;
  const errors: FieldError[] = [];
  for (const kind of Object.keys(tableOf) as Array<keyof typeof tableOf>) {
    const ids = targets[kind]?.ids ?? [];
    if (ids.length === 0) continue;
    const rows = await db.execute<{ id: string }>(sql`
      select requested.id from jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb) as requested(id)
       where not exists (select 1 from ${sql.raw(tableOf[kind])} known where known.id = requested.id and not (${sql.raw(goneWhere[kind] ?? "false")}))`);
    const unknown = new Set(rows.map((row) => row.id));
    ids.forEach((id, index) => {
      if (unknown.has(id)) errors.push({ path: `targets.${kind}.ids.${index}`, message: `No ${nounOf[kind]} has the id ${id}` });
    });
  }
  if (errors.length > 0) {
    throw new AppError("VALIDATION_FAILED", `Unknown target ids: ${errors.map((error) => error.message.split(" ").pop()).join(", ")}`, { errors });
  }
}

export async function countRecipients(options: { db: Executor; source: SQL }): Promise<number> {
  const [row] = await options.db.execute<{ count: number }>(sql`select count(*)::int as count from (${options.source}) recipients`);
  return row?.count ?? 0;
}
