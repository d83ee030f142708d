import { z } from "zod";
import { isoDate } from "./field-schemas";

/**
 * How a monitoring observation repeats (contract, "Time and duration"): after each run it waits
 * `intervalMinutes` from the run's end, and it ends for good once `until` has passed or it has run
 * `maxRuns` times. The document, the API's inputs and the wizard check with this schema.
 */
const MAX_INTERVAL_MINUTES = 366 * 24 * 60;
const MAX_MONITORING_RUNS = 100_000;

export const monitoringSchema = z.object({
  intervalMinutes: z.number().int().min(1).max(MAX_INTERVAL_MINUTES),
  until: isoDate.nullable().default(null),
  maxRuns: z.number().int().min(1).max(MAX_MONITORING_RUNS).nullable().default(null),
});
export type MonitoringCadence = z.output<typeof monitoringSchema>;

const MONITORING_ONLY_PREDICATE = "is only for a monitoring observation (type monitoring)";

/** A cadence given to an observation of another type: refused at the `monitoring` field, whatever else is wrong. */
export function monitoringProblems(value: { type?: string; monitoring?: unknown }): Array<{ path: ["monitoring"]; predicate: string }> {
  return value.monitoring != null && value.type !== undefined && value.type !== "monitoring"
    ? [{ path: ["monitoring"], predicate: MONITORING_ONLY_PREDICATE }]
    : [];
}

/** `monitoringProblems` as a zod refinement of a whole observation (create, or an update that names its type). */
export function refineMonitoring(value: { type?: string; monitoring?: unknown }, ctx: z.RefinementCtx): void {
  for (const problem of monitoringProblems(value)) ctx.addIssue({ code: "custom", path: problem.path, message: problem.predicate });
}
