import type { Executor } from "@meridian/db";
import { sql } from "drizzle-orm";
import { z } from "zod";
import type { UserActor } from "../../platform/actor";
import { resolveObservatoryAccess } from "../permissions";

/** The first night's steps, in the order a new user takes them. */
const gettingStartedStepIds = ["join", "location", "plugin", "project", "observation"] as const;
type GettingStartedStepId = (typeof gettingStartedStepIds)[number];

export const gettingStartedSchema = z
  .object({
    steps: z
      .array(z.object({ id: z.enum(gettingStartedStepIds), done: z.boolean() }))
      .describe(
        "Every step, in order: `join` (the caller belongs to an organization or may view an observatory), `location` (the observatory below has a " +
          "location), `plugin` (its plugin has connected at least once), `project` (the caller owns or belongs to a project), `observation` (the " +
          "caller has submitted an observation)",
      ),
    observatory: z
      .object({
        id: z.string(),
        name: z.string(),
        canAdmin: z.boolean().describe("Whether the caller may set its location and create its plugin keys (can_admin)"),
        hasKey: z.boolean().optional().describe("Whether it has a plugin key that is not revoked; only for a caller with can_admin"),
      })
      .nullable()
      .describe(
        "The observatory the location and plugin steps are about: of those the caller may view, one it administers before one it does not, then the " +
          "furthest along (connected, located, with a key), then the oldest; null when the caller may view none",
      ),
  })
  .meta({ id: "GettingStarted" });
export type GettingStarted = z.infer<typeof gettingStartedSchema>;

type ObservatoryProgress = {
  id: string;
  name: string;
  located: boolean;
  connected: boolean;
  keyed: boolean;
};

/** What the caller's memberships and submissions already show: three existence checks on indexed columns. */
async function ownProgress(db: Executor, userId: string) {
  const [row] = await db.execute<{ in_organization: boolean; in_project: boolean; submitted: boolean }>(sql`
    select exists(select 1 from organization_members where user_id = ${userId}) as in_organization,
           exists(select 1 from projects where owner_id = ${userId}) or exists(select 1 from project_members where user_id = ${userId}) as in_project,
           exists(select 1 from observations where owner_id = ${userId}) as submitted`);
  return row!;
}

async function observatoryProgress(db: Executor, ids: string[]): Promise<ObservatoryProgress[]> {
  if (ids.length === 0) return [];
  // Ever connected: hello writes lastSeenAt into the document; a connection row alone (a crash right after the claim) counts too.
  return db.execute<ObservatoryProgress>(sql`
    select o.id, o.doc->>'name' as name,
           coalesce(jsonb_typeof(o.doc->'location') = 'object', false) as located,
           (o.doc->'connection'->>'lastSeenAt') is not null or coalesce((o.doc->'connection'->>'online')::boolean, false)
             or exists(select 1 from observatory_connections c where c.observatory_id = o.id) as connected,
           exists(select 1 from observatory_keys k where k.observatory_id = o.id and k.doc->>'revokedAt' is null) as keyed
      from observatories o
     where o.id in ${ids}
     order by o.created_at, o.id`);
}

/**
 * The first-night checklist of the dashboard, from what the caller can see: their organizations,
 * the observatories they may view (the location and plugin steps are about one of them, chosen as
 * `gettingStartedSchema` says), their projects and their own observations. A server admin's
 * checklist follows their own memberships, not every observatory they could administer.
 */
export async function readGettingStarted(options: { db: Executor; actor: UserActor }): Promise<GettingStarted> {
  const { db, actor } = options;
  const access = await resolveObservatoryAccess({ db, userId: actor.id, isServerAdmin: actor.isServerAdmin });
  const viewable = [...access].filter(([, permissions]) => permissions.can_view).map(([id]) => id);
  const [own, progress] = await Promise.all([ownProgress(db, actor.id), observatoryProgress(db, viewable)]);
  const rank = (observatory: ObservatoryProgress) => [access.get(observatory.id)!.can_admin, observatory.connected, observatory.located, observatory.keyed];
  // The sort is stable, so among equals the oldest (the query's order) stays first.
  const chosen = progress.sort((a, b) => {
    const [ra, rb] = [rank(a), rank(b)];
    const differs = ra.findIndex((value, index) => value !== rb[index]);
    return differs < 0 ? 0 : ra[differs] ? -1 : 1;
  })[0];
  const canAdmin = chosen ? access.get(chosen.id)!.can_admin : false;
  const done: Record<GettingStartedStepId, boolean> = {
    join: own.in_organization || viewable.length > 0,
    location: Boolean(chosen?.located),
    plugin: Boolean(chosen?.connected),
    project: own.in_project,
    observation: own.submitted,
  };
  return {
    steps: gettingStartedStepIds.map((id) => ({ id, done: done[id] })),
    observatory: chosen ? { id: chosen.id, name: chosen.name, canAdmin, ...(canAdmin ? { hasKey: chosen.keyed } : {}) } : null,
  };
}
