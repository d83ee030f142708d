import { z } from "zod";
import { isoDate, withoutControlCharacters } from "./field-schemas";
import { notifiedStatuses, observationTypes, twilightKinds } from "./observation-statuses";
import { monitoringProblems, monitoringSchema } from "./monitoring-cadence";
import { fieldMessage, issuePredicate, type IssueDetails } from "./validation-messages";

export { monitoringProblems, monitoringSchema, refineMonitoring, type MonitoringCadence } from "./monitoring-cadence";

/**
 * The fields of an observation a person fills in, defined once: the stored document
 * (`packages/db`), the API's create and update inputs (`packages/domain`) and the submission
 * wizard, which checks each field with these schemas as it is typed, so the wizard refuses exactly
 * what the API refuses, in the API's words. Value rules: RA 0 ≤ ra < 360, Dec −90..90, priority
 * 1–10, at least one target with at least one exposure.
 */

const MAX_TARGETS = 100;
const MAX_EXPOSURES = 50;

const exposureSchema = z.object({
  filter: z.string().trim().min(1).max(40),
  exposureSeconds: z.number().positive().max(86_400),
  count: z.number().int().min(1).max(10_000),
  binning: z.number().int().min(1).max(4),
});

/** A list of at least one and at most `max` items. */
const someOf = <T extends z.ZodType>(item: T, max: number) => z.array(item).min(1).max(max);

/** The exposures of one target, however each exposure is checked (the API's input refuses unknown fields). */
export const exposureListSchema = <T extends z.ZodType>(exposure: T) => someOf(exposure, MAX_EXPOSURES);
/** The targets of one observation. */
export const targetListSchema = <T extends z.ZodType>(target: T) => someOf(target, MAX_TARGETS);

export const targetSchema = z.object({
  name: z.string().trim().min(1).max(200),
  ra: z.number().min(0).lt(360),
  dec: z.number().min(-90).max(90),
  epoch: z.string().trim().min(1).max(20).default("J2000"),
  exposures: exposureListSchema(exposureSchema),
});

/**
 * A target and its exposures as a person gives them (the wizard, the API's inputs): their texts are
 * held to the control-character rule as the observation's name is, since NUL and lone surrogates
 * cannot be stored. Stored documents imported from elsewhere are read with the schemas above.
 */
export const exposureDraftSchema = exposureSchema.extend({ filter: withoutControlCharacters(z.string().trim().min(1).max(40)) });
export const targetDraftSchema = targetSchema.extend({
  name: withoutControlCharacters(z.string().trim().min(1).max(200)),
  epoch: withoutControlCharacters(z.string().trim().min(1).max(20)).default("J2000"),
  exposures: exposureListSchema(exposureDraftSchema),
});

export const observationConstraintsSchema = z.object({
  minAltitude: z.number().min(0).max(90).default(30),
  maxAirmass: z.number().min(1).max(40).nullable().default(null),
  moonDistance: z.number().min(0).max(180).nullable().default(null),
  twilight: z.enum(twilightKinds).default("astronomical"),
});

export const observationNotificationsSchema = z.object({
  email: z.boolean().default(true),
  push: z.boolean().default(true),
  states: z.array(z.enum(notifiedStatuses)).default([...notifiedStatuses]),
});

/** What a person names an observation (stored documents imported from elsewhere are not held to the control-character rule). */
export const observationNameSchema = withoutControlCharacters(z.string().trim().min(1).max(200));
export const observationPrioritySchema = z.number().int().min(1).max(10);

/** The time window as the API reads it: ISO 8601 with a zone, or null for no bound. */
export const fixedTimeSchema = isoDate.nullable();

interface Window {
  type?: string;
  fixedTimeStart?: string | null;
  fixedTimeEnd?: string | null;
}

/** Why a time-based observation without a bound is refused, a sentence of its own (it names both fields). */
const TIME_BASED_NEEDS_A_BOUND = "A time-based observation needs a window start, a window end or both.";

/**
 * What is wrong with a window, each at the field it belongs to: the end after the start, a
 * fixed-time observation's start, and a time-based one's bounds (at least one: without either it
 * would be flexible under another name). A bound absent from `value` (a partial update) is not
 * judged missing: the caller judges the observation it would make.
 */
export function fixedTimeProblems(value: Window): Array<{ path: ["fixedTimeStart" | "fixedTimeEnd"]; predicate: string }> {
  const problems: Array<{ path: ["fixedTimeStart" | "fixedTimeEnd"]; predicate: string }> = [];
  if (value.fixedTimeStart && value.fixedTimeEnd && new Date(value.fixedTimeEnd) <= new Date(value.fixedTimeStart))
    problems.push({ path: ["fixedTimeEnd"], predicate: "must be after the window start" });
  if (value.type === "fixed_time" && !value.fixedTimeStart) problems.push({ path: ["fixedTimeStart"], predicate: "is required for a fixed-time observation" });
  if (value.type === "time_based" && value.fixedTimeStart === null && value.fixedTimeEnd === null)
    problems.push({ path: ["fixedTimeStart"], predicate: TIME_BASED_NEEDS_A_BOUND });
  return problems;
}

/** `fixedTimeProblems` as a zod refinement of a whole observation (create or update). */
export function refineFixedTimes(value: Window, ctx: z.RefinementCtx): void {
  for (const problem of fixedTimeProblems(value)) ctx.addIssue({ code: "custom", path: problem.path, message: problem.predicate });
}

/**
 * An observation as the wizard holds it before it is sent: the fields a person fills in (not the
 * project and observatory, which are picked from lists). Numbers the person has not given are
 * `undefined`, text that is not a number stays text, so each is refused as the API would.
 */
export const observationDraftSchema = z.object({
  name: observationNameSchema,
  type: z.enum(observationTypes),
  priority: observationPrioritySchema,
  targets: targetListSchema(targetDraftSchema),
  constraints: observationConstraintsSchema,
  fixedTimeStart: fixedTimeSchema,
  fixedTimeEnd: fixedTimeSchema,
  monitoring: monitoringSchema.nullable().optional(),
});

/**
 * What the API would say of each field of a draft, keyed by the path its `errors[]` would carry
 * (`targets.0.exposures.1.count`), each the sentence it would carry; the first problem of a field
 * only. Parsed with the server's error map, so the wording does not depend on how the caller set up zod.
 */
export function observationDraftProblems(draft: unknown): Record<string, string> {
  const result = observationDraftSchema.safeParse(draft, { error: (issue) => issuePredicate(issue as IssueDetails) });
  const problems: Record<string, string> = {};
  for (const issue of result.error?.issues ?? []) problems[issue.path.map(String).join(".")] ??= fieldMessage(issue.path, issue.message);
  // The window is checked even while other fields fail, which a refinement of the object would not be.
  for (const problem of [...fixedTimeProblems((draft ?? {}) as Window), ...monitoringProblems((draft ?? {}) as { type?: string; monitoring?: unknown })])
    problems[problem.path[0]] ??= fieldMessage(problem.path, problem.predicate);
  return problems;
}
