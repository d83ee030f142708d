import { settingsCollection } from "@meridian/db";
import { observationStatuses } from "@meridian/rules";
import { sql } from "drizzle-orm";
import { z } from "zod";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { resolveObservatoryAccess } from "../permissions";
import { isUniqueViolation } from "../../platform/postgres-errors";
import { frameAnalyticsShape, frameColumns, frameFiguresOf, presentFrameFigures, type FrameColumns, type FrameFigures } from "./frame-figures";

const SUMMARY_ID = "analytics-summary";
/** How many days `daily` covers, today included. */
const ANALYTICS_DAYS = 30;
/** Projects listed in `hoursByProject`. */
const TOP_PROJECTS = 20;

const dailySchema = z.object({ date: z.string(), created: z.number().int(), completed: z.number().int(), failed: z.number().int() });

export const analyticsSchema = z
  .object({
    scope: z.enum(["system", "observatories"]).describe("system: every observatory (server admins); observatories: the ones the caller owns or administers"),
    observatoryCount: z.number().int(),
    observationCount: z.number().int().describe("Observations in every status"),
    userCount: z.number().int().describe("system: every account; observatories: the distinct owners of their observations"),
    organizationCount: z.number().int().describe("Active organizations: those owning or belonging to an observatory, or owning a project"),
    successRate: z.number().nullable().describe("completed / (completed + failed + aborted + partially completed); null before any ended"),
    storageBytes: z.number().describe("Bytes of every file record"),
    observationsByStatus: z.record(z.enum(observationStatuses), z.number().int()),
    daily: z.array(dailySchema).describe(`The last ${ANALYTICS_DAYS} days (UTC), oldest first: created, and moves to completed or failed`),
    hoursByObservatory: z
      .array(z.object({ observatoryId: z.string(), observatoryName: z.string().nullable(), hours: z.number() }))
      .describe(`Hours observed in the last ${ANALYTICS_DAYS} days (time in progress, as allocations charge it), most first (extension)`),
    hoursByProject: z
      .array(z.object({ projectId: z.string(), projectName: z.string().nullable(), hours: z.number() }))
      .describe(`The same per project, the ${TOP_PROJECTS} with the most, most first (extension)`),
    ...frameAnalyticsShape(ANALYTICS_DAYS),
    computedAt: z.string().describe("When the summary was computed; it is refreshed every minute"),
  })
  .meta({ id: "Analytics" });
export type Analytics = z.infer<typeof analyticsSchema>;

interface ObservatoryFigures {
  byStatus: Partial<Record<string, number>>;
  storageBytes: number;
  observers: string[];
  organizations: string[];
  daily: Record<string, { created: number; completed: number; failed: number }>;
  /** Seconds in progress over the last days, per project (absent in a summary written before it existed). */
  secondsByProject?: Record<string, number>;
  /** Its frames analysed over the last days (absent in a summary written before it existed). */
  frames?: FrameFigures;
}

interface Summary {
  computedAt: string;
  userCount: number;
  organizationCount: number;
  observatories: Record<string, ObservatoryFigures>;
}

/**
 * Where an observation counts in the figures, as `counted.observatory_id` beside `observations o`: the observatory it runs at,
 * or while one with candidates waits at none, each of its candidates. Moves count where the history says they were made.
 */
const countedAt = sql`unnest(case when o.observatory_id is null then o.candidate_observatory_ids else array[o.observatory_id] end) as counted (observatory_id)`;

/**
 * The `refresh_analytics` job (every minute): every figure, per observatory, from a handful of
 * grouped queries, stored as one document. Requests read it, so none counts a table; figures are
 * exact after at most a minute.
 */

export async function refreshAnalytics(deps: Deps): Promise<Summary> {
  const { db } = deps;
  // The time the reading starts: every figure below is at least this fresh.
  const computedAt = deps.now();
  const since = new Date(computedAt.getTime() - (ANALYTICS_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
  const observatories: Record<string, ObservatoryFigures> = {};
  const of = (id: string) => (observatories[id] ??= { byStatus: {}, storageBytes: 0, observers: [], organizations: [], daily: {} });
  const day = (id: string, date: string) => (of(id).daily[date] ??= { created: 0, completed: 0, failed: 0 });
  const sinceInstant = new Date(`${since}T00:00:00Z`).toISOString();

  for (const row of await db.execute<{ id: string }>(sql`select id from observatories`)) of(row.id);
  for (const row of await db.execute<{ observatory_id: string; status: string; count: number }>(sql`
    select counted.observatory_id, o.status, count(*)::int as count from observations o, ${countedAt} group by 1, 2`))
    of(row.observatory_id).byStatus[row.status] = row.count;
  for (const row of await db.execute<{ observatory_id: string; owners: string[] }>(sql`
    select counted.observatory_id, array_agg(distinct o.owner_id) as owners from observations o, ${countedAt} group by 1`))
    of(row.observatory_id).observers = row.owners;
  for (const row of await db.execute<{ observatory_id: string; bytes: string } & FrameColumns>(sql`
    select f.doc->>'observatoryId' as observatory_id, sum((f.doc->>'sizeBytes')::bigint)::text as bytes, ${frameColumns(sinceInstant)}
      from files f group by 1`)) {
    of(row.observatory_id).storageBytes = Number(row.bytes);
    of(row.observatory_id).frames = frameFiguresOf(row);
  }
  for (const row of await db.execute<{ observatory_id: string; organization_id: string }>(sql`
    select id as observatory_id, owner_id as organization_id from observatories where owner_kind = 'organization'
    union
    select observatory_id, member_id from observatory_members where member_kind = 'organization'`))
    of(row.observatory_id).organizations.push(row.organization_id);
  for (const row of await db.execute<{ observatory_id: string; date: string; count: number }>(sql`
    select counted.observatory_id, to_char(o.created_at at time zone 'UTC', 'YYYY-MM-DD') as date, count(*)::int as count
      from observations o, ${countedAt} where o.created_at >= ${since}::date group by 1, 2`))
    day(row.observatory_id, row.date).created = row.count;
  for (const row of await db.execute<{ observatory_id: string; date: string; to: "completed" | "failed"; count: number }>(sql`
    select coalesce(h.doc->>'observatoryId', o.observatory_id) as observatory_id, to_char(h.created_at at time zone 'UTC', 'YYYY-MM-DD') as date,
           h.doc->>'to' as to, count(*)::int as count
      from observation_history h join observations o on o.id = h.observation_id
     where h.created_at >= ${since}::date and h.doc->>'to' in ('completed', 'failed') and h.doc->>'from' is distinct from h.doc->>'to'
     group by 1, 2, 3`))
    day(row.observatory_id, row.date)[row.to] = row.count;

  // Each stay in progress, from that move to the next, clipped to the last days: what allocations charge.
  const nowInstant = computedAt.toISOString();
  for (const row of await db.execute<{ observatory_id: string; project_id: string; seconds: number }>(sql`
    select coalesce(s.ran_at, o.observatory_id) as observatory_id, o.project_id,
           sum(greatest(0, extract(epoch from least(coalesce(s.ended_at, ${nowInstant}::timestamptz), ${nowInstant}::timestamptz)
                                           - greatest(s.started_at, ${sinceInstant}::timestamptz))))::float8 as seconds
      from (
        select h.observation_id, h.doc->>'to' as status, (h.doc->>'at')::timestamptz as started_at, h.doc->>'observatoryId' as ran_at,
               lead((h.doc->>'at')::timestamptz) over (partition by h.observation_id order by (h.doc->>'at')::timestamptz, h.created_at, h.id) as ended_at
          from observation_history h
         where h.observation_id in (select id from observations where status_changed_at >= ${sinceInstant}::timestamptz or status = 'in_progress')
      ) s join observations o on o.id = s.observation_id
     where s.status = 'in_progress'
     group by 1, 2`)) {
    const figures = of(row.observatory_id);
    if (row.seconds > 0) (figures.secondsByProject ??= {})[row.project_id] = row.seconds;
  }

  const [counts] = await db.execute<{ users: number; organizations: number }>(sql`
    select (select count(*)::int from users) as users,
           (select count(*)::int from organizations g where exists (select 1 from observatories o where o.owner_kind = 'organization' and o.owner_id = g.id)
              or exists (select 1 from observatory_members m where m.member_kind = 'organization' and m.member_id = g.id)
              or exists (select 1 from projects p where p.doc->>'organizationId' = g.id)) as organizations`);
  const summary: Summary = {
    computedAt: computedAt.toISOString(),
    userCount: counts?.users ?? 0,
    organizationCount: counts?.organizations ?? 0,
    observatories,
  };
  const stored = await settingsCollection.get(db, SUMMARY_ID);
  // Two processes refreshing at once: the summary that started reading later wins.
  if (stored)
    await settingsCollection.update(db, SUMMARY_ID, (doc) =>
      ((doc.value as Summary | undefined)?.computedAt ?? "") > summary.computedAt ? doc : { value: summary },
    );
  else
    await settingsCollection.insert(db, { value: summary }, SUMMARY_ID).catch((error: unknown) => {
      // Two processes computing the first summary at once: the other one's is as good.
      if (!isUniqueViolation({ error })) throw error;
    });
  return summary;
}

/**
 * The figures a caller may see: the whole system for a server admin, otherwise the observatories
 * they own or administer (spec: owners and admins get a dashboard scoped to their observatories).
 */
export async function readAnalytics(options: { deps: Deps; scope: "system" } | { deps: Deps; actor: UserActor; scope: "observatories" }): Promise<Analytics> {
  const { deps } = options;
  const stored = await settingsCollection.get(deps.db, SUMMARY_ID);
  const summary = (stored?.doc.value as Summary | undefined) ?? (await refreshAnalytics(deps));
  let ids: string[];
  if (options.scope === "system") ids = Object.keys(summary.observatories);
  else {
    const access = await resolveObservatoryAccess({ db: deps.db, userId: options.actor.id, isServerAdmin: false });
    ids = [...access].filter(([, permissions]) => permissions.can_admin).map(([id]) => id);
  }
  const figures = ids.map((id) => summary.observatories[id]).filter((entry): entry is ObservatoryFigures => Boolean(entry));
  const byStatus = Object.fromEntries(observationStatuses.map((status) => [status, 0])) as Record<(typeof observationStatuses)[number], number>;
  let storageBytes = 0;
  const observers = new Set<string>();
  const organizations = new Set<string>();
  const daily = new Map<string, { created: number; completed: number; failed: number }>();
  const today = new Date(summary.computedAt).getTime();
  for (let offset = ANALYTICS_DAYS - 1; offset >= 0; offset -= 1)
    daily.set(new Date(today - offset * 86_400_000).toISOString().slice(0, 10), { created: 0, completed: 0, failed: 0 });
  for (const entry of figures) {
    for (const [status, count] of Object.entries(entry.byStatus)) byStatus[status as keyof typeof byStatus] += count ?? 0;
    storageBytes += entry.storageBytes;
    for (const observer of entry.observers) observers.add(observer);
    for (const organization of entry.organizations) organizations.add(organization);
    for (const [date, counts] of Object.entries(entry.daily)) {
      const total = daily.get(date);
      if (!total) continue;
      total.created += counts.created;
      total.completed += counts.completed;
      total.failed += counts.failed;
    }
  }
  const hours = (seconds: number) => Math.round((seconds / 3600) * 100) / 100;
  const byObservatory = ids
    .map((id) => ({ id, seconds: Object.values(summary.observatories[id]?.secondsByProject ?? {}).reduce((sum, value) => sum + value, 0) }))
    .filter((entry) => entry.seconds > 0);
  const byProject = new Map<string, number>();
  for (const entry of figures)
    for (const [projectId, seconds] of Object.entries(entry.secondsByProject ?? {})) byProject.set(projectId, (byProject.get(projectId) ?? 0) + seconds);
  const topProjects = [...byProject].sort((a, b) => b[1] - a[1]).slice(0, TOP_PROJECTS);
  const frames = presentFrameFigures(ids.map((id) => ({ observatoryId: id, frames: summary.observatories[id]?.frames })));
  const names = await namesOf(deps, {
    observatories: [...new Set([...byObservatory.map((entry) => entry.id), ...frames.byObservatory.map((entry) => entry.observatoryId)])],
    projects: topProjects.map(([id]) => id),
  });
  const ended = byStatus.completed + byStatus.failed + byStatus.aborted + byStatus.partially_completed;
  const system = options.scope === "system";
  return {
    scope: options.scope,
    observatoryCount: figures.length,
    observationCount: Object.values(byStatus).reduce((sum, count) => sum + count, 0),
    userCount: system ? summary.userCount : observers.size,
    organizationCount: system ? summary.organizationCount : organizations.size,
    successRate: ended === 0 ? null : byStatus.completed / ended,
    storageBytes,
    observationsByStatus: byStatus,
    daily: [...daily].map(([date, counts]) => ({ date, ...counts })),
    hoursByObservatory: byObservatory
      .sort((a, b) => b.seconds - a.seconds)
      .map((entry) => ({ observatoryId: entry.id, observatoryName: names.get(entry.id) ?? null, hours: hours(entry.seconds) })),
    hoursByProject: topProjects.map(([projectId, seconds]) => ({ projectId, projectName: names.get(projectId) ?? null, hours: hours(seconds) })),
    framesAnalysed: frames.framesAnalysed,
    framesFailed: frames.framesFailed,
    framesAcceptedShare: frames.framesAcceptedShare,
    framesByObservatory: frames.byObservatory.map((entry) => ({ ...entry, observatoryName: names.get(entry.observatoryId) ?? null })),
    computedAt: summary.computedAt,
  };
}

/** The names of the observatories and projects the hours name, read now (the summary keeps ids only). */
async function namesOf(deps: Deps, ids: { observatories: string[]; projects: string[] }) {
  const names = new Map<string, string>();
  if (ids.observatories.length > 0)
    for (const row of await deps.db.execute<{ id: string; name: string }>(
      sql`select id, doc->>'name' as name from observatories where id in ${ids.observatories}`,
    ))
      names.set(row.id, row.name);
  if (ids.projects.length > 0)
    for (const row of await deps.db.execute<{ id: string; name: string }>(sql`select id, doc->>'name' as name from projects where id in ${ids.projects}`))
      names.set(row.id, row.name);
  return names;
}
