import { sql } from "drizzle-orm";
import { z } from "zod";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { loadObservationAccess } from "../observations";
import { resolveObservatoryAccess } from "../permissions";
import { observatoryZones } from "./observatory-zones";

const instant = z.string().describe("ISO 8601, UTC");
const timeZone = z.string().describe("The observatory's IANA time zone: clients show its times in it");

export const observationPlanPlaceSchema = z
  .object({
    observationId: z.string(),
    computedAt: instant.nullable().describe("When the plan in force was made; null before the first plan (then both lists are empty)"),
    horizonEnd: instant.nullable().describe("The end of the plan's horizon (`PLAN_HORIZON_HOURS` after `computedAt`)"),
    slots: z
      .array(z.object({ observatoryId: z.string(), timeZone, start: instant, end: instant }))
      .describe("Its runs in the plan, by start (a monitoring observation may have several): where and when"),
    reasons: z
      .array(z.object({ observatoryId: z.string(), timeZone, code: z.string(), until: instant.nullable() }))
      .describe("Why the plan leaves it out, at each of its candidates the caller may view (the queue's codes); empty when it is planned"),
  })
  .meta({ id: "ObservationPlanPlace" });
type ObservationPlanPlace = z.infer<typeof observationPlanPlaceSchema>;

type PlaceRow = {
  computed_at: string;
  horizon_end: string;
  slots: Array<{ observatoryId: string; start: string; end: string }>;
  reasons: Array<{ observatoryId: string; code: string; until: string | null }>;
};

/** The observation's runs and reasons in the plan in force, picked out by the database: one observation never fetches the whole plan. */
async function placeInPlan(deps: Deps, observationId: string): Promise<PlaceRow | undefined> {
  const [row] = await deps.db.execute<PlaceRow>(sql`
    select p.doc->>'computedAt' as computed_at, p.doc->>'horizonEnd' as horizon_end,
           coalesce((select jsonb_agg(jsonb_build_object('observatoryId', s->'observatoryId', 'start', s->'start', 'end', s->'end')
                                      order by (s->>'start')::timestamptz)
                       from jsonb_array_elements(p.doc->'slots') s where s->>'observationId' = ${observationId}), '[]'::jsonb) as slots,
           coalesce((select u->'reasons' from jsonb_array_elements(p.doc->'unscheduled') u
                      where u->>'observationId' = ${observationId} limit 1), '[]'::jsonb) as reasons
      from network_plans p where p.id = 'current'`);
  return row;
}

/**
 * `GET /network/plan/observations/{id}` (tRPC `network.observationPlace`): where and when the plan in force runs one
 * observation, or why it leaves it out at each of its candidates, for its readers (404 for anyone else, as for an id that
 * does not exist). Its runs are the forecast's (whose `observatoryId` every reader gets); the reasons at an observatory,
 * like the network plan's, only for those who may view it.
 */
export async function getObservationPlanPlace(options: { deps: Deps; actor: UserActor; observationId: string }): Promise<ObservationPlanPlace> {
  const { deps, actor, observationId } = options;
  await loadObservationAccess({ db: deps.db, actor, observationId });
  const place = await placeInPlan(deps, observationId);
  if (!place) return { observationId, computedAt: null, horizonEnd: null, slots: [], reasons: [] };
  const reasonAt = [...new Set(place.reasons.map((reason) => reason.observatoryId))];
  const access = await resolveObservatoryAccess({ db: deps.db, userId: actor.id, isServerAdmin: actor.isServerAdmin, observatoryIds: reasonAt });
  const reasons = place.reasons.filter((reason) => access.get(reason.observatoryId)?.can_view);
  const zones = await observatoryZones({ deps, observatoryIds: [...new Set([...place.slots, ...reasons].map((item) => item.observatoryId))] });
  const zoneOf = (observatoryId: string) => zones.get(observatoryId) ?? "UTC";
  return {
    observationId,
    computedAt: place.computed_at,
    horizonEnd: place.horizon_end,
    slots: place.slots.map(({ observatoryId, start, end }) => ({ observatoryId, timeZone: zoneOf(observatoryId), start, end })),
    // The contract's fields: the details the night plan shows stay out, as in the network's read.
    reasons: reasons.map(({ observatoryId, code, until }) => ({ observatoryId, timeZone: zoneOf(observatoryId), code, until })),
  };
}
