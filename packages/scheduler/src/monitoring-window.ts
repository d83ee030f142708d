import type { SchedulingDoc } from "./inputs";

const MINUTE = 60_000;

/**
 * The cadence's window (docs/api-contract.md, "Time and duration"): not before the last run's end
 * plus `intervalMinutes` (the queue's BEFORE_WINDOW, with that moment), never after `until` (AFTER_WINDOW).
 */
export function monitoringWindow(options: { doc: Pick<SchedulingDoc, "monitoring" | "monitoringRuns"> }): { notBefore: Date | null; notAfter: Date | null } {
  const cadence = options.doc.monitoring;
  const runs = options.doc.monitoringRuns;
  if (!cadence) return { notBefore: null, notAfter: null };
  return {
    notBefore: runs ? new Date(new Date(runs.lastEndedAt).getTime() + cadence.intervalMinutes * MINUTE) : null,
    notAfter: cadence.until ? new Date(cadence.until) : null,
  };
}
