import { z } from "@hono/zod-openapi";
import {
  FORECAST_NIGHTS,
  forecastDraft,
  getObservationForecast,
  getObservatoryPlan,
  observationCreateSchema,
  PLAN_NIGHTS_AHEAD,
} from "@meridian/domain/observations";
import { observationStatuses } from "@meridian/rules";
import { defineOperation } from "./define-operation";
import { authedErrors, idParam } from "./responses";
import { waitReasonFields } from "./wait-reason";

const params = z.object({ id: idParam });
const instant = z.string().describe("ISO 8601, UTC");
const block = z.object(waitReasonFields).meta({ id: "PlanBlock" });

const nightQuery = z.object({
  night: z.iso
    .date()
    .optional()
    .describe(
      `The observatory-local date (YYYY-MM-DD) on which the night begins; default the night in progress, or the next. ` +
        `From the current night to ${PLAN_NIGHTS_AHEAD} nights after it.`,
    ),
});

const observatoryPlanSchema = z
  .object({
    observatoryId: z.string(),
    timeZone: z.string().describe("The observatory's IANA time zone: clients show the plan's times in it"),
    date: z.string().describe("The observatory-local date on which the planned night begins (extension)"),
    source: z
      .enum(["network", "projection"])
      .describe(
        "network: the network plan in force (`GET /network/plan`) has this night, which begins before its horizon ends; projection: the " +
          "night begins past the horizon, no plan has been made yet (or none since the observatory was created), or the plan " +
          "holds the observatory away (offline or unsafe for more than `REASSIGN_AFTER_MINUTES`: it plans nothing there until it " +
          "is back), and dispatch run forward at this observatory alone, assuming it is back, estimates it (extension)",
      ),
    horizonEnd: instant
      .nullable()
      .describe("The end of the network plan's horizon: a night it cuts shows nothing planned after it; null before the first plan (extension)"),
    night: z
      .object({
        sunset: instant,
        civilDusk: instant.nullable().describe("The end of civil twilight (the sun 6° below the horizon); null when the sun does not get that low (extension)"),
        nauticalDusk: instant.nullable().describe("The end of nautical twilight (12° below); null when the sun does not get that low (extension)"),
        darkStart: instant.nullable().describe("Astronomical dusk (the sun 18° below the horizon); null when the sun does not get that low (extension)"),
        darkEnd: instant.nullable(),
        nauticalDawn: instant.nullable().describe("The start of nautical twilight before sunrise (extension)"),
        civilDawn: instant.nullable().describe("The start of civil twilight before sunrise (extension)"),
        sunrise: instant,
      })
      .nullable()
      .describe("Null without a location, or where the sun does not set that day"),
    moon: z.object({
      illumination: z.number().nullable().describe("Lit fraction of the disc at the middle of the night, 0 to 1; null without a night"),
      rise: instant.nullable().describe("Between sunset and sunrise; null when it does not rise then"),
      set: instant.nullable(),
    }),
    slots: z.array(
      z.object({
        observationId: z.string(),
        name: z.string(),
        priority: z.number().int(),
        status: z.enum(observationStatuses).describe("pending for planned work; assigned or later for what runs now (extension)"),
        ownerId: z.string().describe("extension"),
        ownerName: z.string().nullable().describe("extension"),
        start: instant,
        end: instant,
      }),
    ),
    unscheduled: z.array(
      z.object({
        observationId: z.string(),
        name: z.string().describe("extension"),
        priority: z.number().int().describe("extension"),
        blockedBy: block,
      }),
    ),
    altitude: z.array(
      z.object({
        observationId: z.string(),
        target: z
          .object({ name: z.string(), count: z.number().int().min(1) })
          .describe("The target the curve follows, the first of the observation's `count` targets, so a chart can say so (extension)"),
        minAltitude: z.number().describe("The observation's minimum altitude, for the line its curve is read against (extension)"),
        points: z.array(z.object({ at: instant, altitude: z.number() })),
      }),
    ),
  })
  .meta({ id: "ObservatoryPlan" });

const observationForecastSchema = z.object({
  timeZone: z.string().describe("The observatory's IANA time zone (extension)"),
  expectedStart: instant.nullable(),
  expectedEnd: instant.nullable(),
  night: z.string().nullable().describe("The observatory-local date on which the night of the expected start begins"),
  blockedBy: block.nullable(),
  observatoryReasons: z
    .array(block)
    .optional()
    .describe(
      "What holds every observation at the observatory now (OFFLINE, DISPATCH_OFF, PLUGIN_OUTDATED, UNSAFE): the forecast assumes none. " +
        "Only for callers who may view the observatory (can_view); a project member who may not gets no such field (extension)",
    ),
});

const plannedForecastSchema = observationForecastSchema
  .extend({
    observatoryId: z
      .string()
      .nullable()
      .describe(
        "Where the observation runs: the observatory it is assigned to or runs at, or while pending the one of its next run in the network " +
          "plan in force (`GET /network/plan`); null when the plan leaves it out, and once it has ended",
      ),
  })
  .meta({ id: "ObservationForecast" });

const draftForecastSchema = observationForecastSchema
  .extend({
    estimatedSeconds: z.number().describe("How long it would hold the observatory, by the observatory's settings now"),
    // Whoever may submit there may view the observatory: the draft's forecast always has it.
    observatoryReasons: z.array(block).describe("What holds every observation at the observatory now: the forecast assumes none (extension)"),
  })
  .meta({ id: "DraftForecast" });

const planDescription =
  'The network plan\'s slots at this observatory for the night asked for (docs/api-contract.md, "Network scheduling"), when the night ' +
  "begins before the plan's horizon (`PLAN_HORIZON_HOURS` after it was made) ends: `source` is network. The night in progress shows first " +
  "what is assigned or running here (with its expected end), then the plan's runs here not yet over; a night holds the runs that start from " +
  "the sunrise before it to the sunrise after it, and the part of a night past `horizonEnd` shows nothing planned (the plan moves on every " +
  "minute). `unscheduled` lists the other observations waiting here in dispatch order, each with why it is not in the night: the plan's " +
  "reason here, or PLANNED_LATER (`until`: its run here on a later night) or PLANNED_ELSEWHERE (`observatoryId`, `until`: its next run " +
  "at another of its candidates); one the plan runs only on an earlier night is not listed, nor one submitted or changed since the plan in " +
  "force was made (it appears when the plan is made again, within seconds: `network.plan_changed`). A night that begins past the horizon, " +
  "every night before the first plan (or the first since the observatory was created), and every night while the plan " +
  "holds the observatory away (offline or unsafe for more than `REASSIGN_AFTER_MINUTES`, so that it plans nothing there) " +
  "are `source` projection: dispatch run forward at this observatory alone, the same ordering and " +
  "eligibility as dispatch, assuming the observatory connected, safe, with a current plugin and dispatch on; planned from the current " +
  "night on, each later night from its darkness with what earlier nights leave pending, every observation with this observatory among " +
  "its candidates counted here. In both, each observation holds the observatory for its estimated duration, and `unscheduled[].blockedBy` " +
  "names what keeps it from running here: TARGET_NOT_VISIBLE with `highestAltitude` for a target that never rises high enough at the " +
  "site, NOT_DARK with `windowInDaylight` for a time window with no darkness, else ALLOCATION_EXHAUSTED when its project's time here is " +
  "spent, else FILTER_MISSING when it asks for a filter the observatory did not report, else its own reason (BEFORE_WINDOW, AFTER_WINDOW, NOT_DARK, " +
  "TARGET_NOT_VISIBLE, or WOULD_NOT_FINISH with its `limit` and `at` when it would start but not finish) at the moment it came closest to " +
  "running, with when it ends (never in the past), or OBSERVATORY_BUSY when it could have run but the time went to work worth more. " +
  "`altitude` samples the first target every 10 minutes from sunset to sunrise, for every planned observation and then unscheduled ones, " +
  "100 curves at most. The plan reads at most 2,000 pending observations here. All times ISO 8601 UTC.";

/** The night plan and an observation's forecast (tRPC `observatories.plan`, `observations.forecast`). */
export const observatoryPlanOperations = {
  plan: defineOperation({
    operationId: "getObservatoryPlan",
    access: "signed-in",
    tags: ["Observatories"],
    summary: "The night plan: when each pending observation will run (can_view)",
    description: planDescription,
    method: "get",
    path: "/observatories/{id}/plan",
    status: 200,
    params,
    query: nightQuery,
    output: observatoryPlanSchema,
    outputDescription: "The plan",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => getObservatoryPlan({ deps: ctx.deps, actor, observatoryId: input.id, night: input.night }),
  }),
};

export const observationForecastOperations = {
  forecast: defineOperation({
    operationId: "getObservationForecast",
    access: "signed-in",
    tags: ["Observations"],
    summary: "When the observation is expected to run (readers)",
    description:
      "A pending observation the network plan in force runs (`GET /network/plan`, within its horizon): its next run there, `observatoryId` " +
      "naming where, `expectedStart` and `expectedEnd` the run's, `night` the local date of the night it falls in as the night plan dates " +
      "it, `timeZone` and `observatoryReasons` that observatory's. Otherwise (the plan leaves it out, or has not seen it yet: it is made " +
      "again within seconds of a change) dispatch run forward at its observatory, or at each candidate (the one that starts it first), for " +
      `the current night and up to ${FORECAST_NIGHTS} after it, until the observation is in it: its expected start and end, and the local ` +
      "date of that night; `observatoryId` is then null. When it fits none, `expectedStart` is null and `blockedBy` says why (as the " +
      "plan's unscheduled entries do). An observation already assigned or running gives its expected end; one that has ended gives nulls.",
    method: "get",
    path: "/observations/{id}/forecast",
    status: 200,
    params,
    output: plannedForecastSchema,
    outputDescription: "The forecast",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => getObservationForecast({ deps: ctx.deps, actor, observationId: input.id }),
  }),
  forecastDraft: defineOperation({
    operationId: "forecastObservationDraft",
    access: "signed-in",
    tags: ["Observations"],
    summary: "The estimate and forecast of an observation before it is submitted (who may create it)",
    description:
      "Takes the body `POST /observations` takes and stores nothing: its estimated duration by the observatory's settings, and when it " +
      "would run if submitted now (it joins the queue after every pending observation of its priority), as the forecast says. Refused " +
      "as the submission would be (403 without can_observe, 404 for a project or observatory the caller cannot see, 400 for bad fields). " +
      "With candidateObservatoryIds: the forecast at whichever candidate would start it first (its zone and what holds it there), the " +
      "estimate by the first candidate's settings, as the observation's would read. An extension: the submission wizard's review shows it.",
    method: "post",
    path: "/observations/forecast",
    status: 200,
    body: observationCreateSchema,
    output: draftForecastSchema,
    outputDescription: "The estimate and forecast",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => forecastDraft({ deps: ctx.deps, actor, input }),
  }),
};
