import { readNetworkPlan, type NetworkPlanDoc } from "@meridian/db";
import { sql } from "drizzle-orm";
import { z } from "zod";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { opaqueIdSchema } from "../../platform/validation/opaque-id";
import { readableObservationIds } from "../observations";
import { listViewableObservatoryIds, resolveObservatoryAccess } from "../permissions";
import { observatoryZones } from "./observatory-zones";

/** The most observatories one read of the plan covers. */
export const MAX_PLAN_OBSERVATORIES = 50;

export const networkPlanQuerySchema = z.object({
  observatoryIds: z
    .string()
    .max(MAX_PLAN_OBSERVATORIES * 101)
    .transform((value) => [...new Set(value.split(",").map((part) => part.trim()))])
    .pipe(z.array(opaqueIdSchema).min(1).max(MAX_PLAN_OBSERVATORIES))
    .optional()
    .describe(`Observatory ids separated by commas, 1 to ${MAX_PLAN_OBSERVATORIES}, can_view on each; default every observatory the caller may view`),
});

const instant = z.string().describe("ISO 8601, UTC");

export const networkPlanSchema = z
  .object({
    computedAt: instant.nullable().describe("When the plan in force was made; null before the first plan (then every list is empty)"),
    horizonEnd: instant.nullable().describe("The end of the plan's horizon (`PLAN_HORIZON_HOURS` after `computedAt`)"),
    objective: z.number().describe("Σ priority × (end − start) in seconds over `slots`"),
    observatories: z.array(
      z.object({
        observatoryId: z.string(),
        timeZone: z.string().describe("The observatory's IANA time zone: clients show its times in it"),
        nights: z.array(z.object({ darkStart: instant, darkEnd: instant })).describe("Its dark periods (the Sun below −18°) within the horizon"),
      }),
    ),
    slots: z.array(
      z.object({
        observationId: z.string(),
        observatoryId: z.string(),
        name: z.string(),
        priority: z.number().int(),
        start: instant,
        end: instant,
      }),
    ),
    unscheduled: z.array(
      z.object({
        observationId: z.string(),
        reasons: z.array(z.object({ observatoryId: z.string(), code: z.string(), until: instant.nullable() })),
      }),
    ),
  })
  .meta({ id: "NetworkPlan" });
type NetworkPlanView = z.infer<typeof networkPlanSchema>;

/** The observatories a read covers by default: every one the caller may view, in id order, at most MAX_PLAN_OBSERVATORIES. */
async function viewableObservatories(deps: Deps, actor: UserActor): Promise<string[]> {
  if (!actor.isServerAdmin) return listViewableObservatoryIds({ db: deps.db, userId: actor.id, limit: MAX_PLAN_OBSERVATORIES });
  const rows = await deps.db.execute<{ id: string }>(sql`
    select id from observatories where doc->>'removedAt' is null order by id limit ${MAX_PLAN_OBSERVATORIES}`);
  return rows.map((row) => row.id);
}

/** Refused unless the caller may view every observatory asked for (403 names those it may not). */
async function requireViewable(deps: Deps, actor: UserActor, observatoryIds: string[]) {
  const access = await resolveObservatoryAccess({ db: deps.db, userId: actor.id, isServerAdmin: actor.isServerAdmin, observatoryIds });
  const refused = observatoryIds.filter((id) => !access.get(id)?.can_view);
  if (refused.length > 0) throw new AppError("FORBIDDEN", `This needs can_view on every observatory asked for; not on ${refused.join(", ")}`);
}

/** The plan's part at these observatories, of the observations the caller may read. */
async function planAt(deps: Deps, actor: UserActor, plan: NetworkPlanDoc | null, observatoryIds: string[]): Promise<NetworkPlanView> {
  const wanted = new Set(observatoryIds);
  const zones = await observatoryZones({ deps, observatoryIds });
  const nights = new Map(plan?.observatories.map((observatory) => [observatory.observatoryId, observatory.nights]));
  const slots = plan?.slots.filter((slot) => wanted.has(slot.observatoryId)) ?? [];
  const unscheduled = (plan?.unscheduled ?? [])
    .map((item) => ({
      observationId: item.observationId,
      // The contract's fields: the details the night plan shows stay out of the network's read.
      reasons: item.reasons.filter((reason) => wanted.has(reason.observatoryId)).map(({ observatoryId, code, until }) => ({ observatoryId, code, until })),
    }))
    .filter((item) => item.reasons.length > 0);
  const readable = await readableObservationIds({
    db: deps.db,
    actor,
    observationIds: [...new Set([...slots, ...unscheduled].map((item) => item.observationId))],
  });
  const shown = slots.filter((slot) => readable.has(slot.observationId));
  return {
    computedAt: plan?.computedAt ?? null,
    horizonEnd: plan?.horizonEnd ?? null,
    objective: shown.reduce((total, slot) => total + (slot.priority * (Date.parse(slot.end) - Date.parse(slot.start))) / 1000, 0),
    observatories: observatoryIds.map((observatoryId) => ({
      observatoryId,
      timeZone: zones.get(observatoryId) ?? "UTC",
      nights: nights.get(observatoryId) ?? [],
    })),
    slots: shown.map(({ run: _run, observationVersion: _version, ...slot }) => slot),
    unscheduled: unscheduled.filter((item) => readable.has(item.observationId)),
  };
}

/** `GET /network/plan` (tRPC `network.plan`): the network plan in force at the observatories asked for, or every one the caller may view. */
export async function getNetworkPlan(options: { deps: Deps; actor: UserActor; observatoryIds?: string[] }): Promise<NetworkPlanView> {
  const { deps, actor } = options;
  if (options.observatoryIds) await requireViewable(deps, actor, options.observatoryIds);
  const observatoryIds = options.observatoryIds ?? (await viewableObservatories(deps, actor));
  const plan = await readNetworkPlan(deps.db);
  return planAt(deps, actor, plan, observatoryIds);
}
