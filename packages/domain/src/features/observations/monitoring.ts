import type { ObservationDoc } from "@meridian/db";
import type { MonitoringCadence } from "@meridian/rules/observations";
import { AppError, fieldError } from "../../platform/errors";

const MINUTE = 60_000;

/** A cadence whose `until` has passed could never run again: refused, rather than stored to wait for ever. */
export function refuseEndedCadence(options: { monitoring: MonitoringCadence | null | undefined; now: Date }) {
  const { monitoring, now } = options;
  if (monitoring?.until && new Date(monitoring.until) <= now)
    throw new AppError("VALIDATION_FAILED", "The monitoring cadence has already ended", {
      errors: [fieldError({ path: "monitoring.until", predicate: `lies in the past (now is ${now.toISOString()}): no run could start` })],
    });
}

/**
 * A run ended (completed or failed) at `endedAt`: the runs counted so far, and whether another one
 * follows. None follows once `maxRuns` runs are done, or when the next could only start after `until`;
 * `ending` then says why, for the history.
 */
export function monitoringRunEnded(options: { doc: Pick<ObservationDoc, "monitoring" | "monitoringRuns">; endedAt: Date }) {
  const { doc, endedAt } = options;
  const runs = { count: (doc.monitoringRuns?.count ?? 0) + 1, lastEndedAt: endedAt.toISOString() };
  const cadence = doc.monitoring;
  let ending: string | null = null;
  if (cadence?.maxRuns != null && runs.count >= cadence.maxRuns) ending = `monitoring ended after ${runs.count} of ${cadence.maxRuns} runs`;
  else if (cadence?.until && endedAt.getTime() + cadence.intervalMinutes * MINUTE > new Date(cadence.until).getTime())
    ending = `monitoring ended: no run can start before its end (${cadence.until})`;
  return { runs, repeats: ending === null, ending };
}
