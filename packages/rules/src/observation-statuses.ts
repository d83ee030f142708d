/**
 * The spec's eleven observation statuses and the allowed moves of docs/api-contract.md between them. This
 * table is the only place a move is allowed or refused: the API, the observatory connection,
 * the monitors and the integrity scan all ask `canMove`, and the SPA shows the same rule.
 */
export const observationStatuses = [
  "pending",
  "assigned",
  "in_progress",
  "acquisition_complete",
  "completed",
  "failed",
  "cancelled",
  "paused",
  "suspended",
  "aborted",
  "partially_completed",
] as const;
export type ObservationStatus = (typeof observationStatuses)[number];

export const observationTransitions: Readonly<Record<ObservationStatus, readonly ObservationStatus[]>> = {
  pending: ["assigned", "paused", "cancelled"],
  paused: ["pending", "cancelled"],
  assigned: ["in_progress", "pending", "failed", "aborted", "cancelled"],
  in_progress: ["acquisition_complete", "suspended", "failed", "aborted", "cancelled"],
  suspended: ["in_progress", "acquisition_complete", "partially_completed", "failed", "aborted", "cancelled"],
  acquisition_complete: ["completed", "partially_completed", "failed"],
  completed: [],
  failed: [],
  cancelled: [],
  aborted: [],
  partially_completed: [],
};

export const canMove = (from: ObservationStatus, to: ObservationStatus): boolean => observationTransitions[from].includes(to);

/**
 * The moves an observatory's plugin makes, and so the only statuses its key may report: dispatch
 * assigns, users pause, resume and cancel, the connection gives an unstarted observation back.
 * Any other status from a key is refused (FORBIDDEN_TRANSITION), whatever the table allows.
 */
export const pluginReportableStatuses: readonly ObservationStatus[] = [
  "in_progress",
  "suspended",
  "acquisition_complete",
  "completed",
  "partially_completed",
  "failed",
  "aborted",
];

export const pluginMayReport = (to: ObservationStatus): boolean => pluginReportableStatuses.includes(to);

/** Statuses from which nothing moves on (a monitoring observation's completed and failed go back to pending). */
export const isFinalStatus = (status: ObservationStatus): boolean => observationTransitions[status].length === 0;

/**
 * The moves the server makes of a monitoring observation beyond the table: a run's end back to
 * pending, and, when its cadence is over, a failed last run to completed (contract, "Time and duration").
 */
export const isMonitoringMove = (from: ObservationStatus, to: ObservationStatus): boolean =>
  ((from === "completed" || from === "failed") && to === "pending") || (from === "failed" && to === "completed");

/** An observatory is busy while it holds one of these. */
export const activeStatuses: readonly ObservationStatus[] = ["assigned", "in_progress", "suspended", "acquisition_complete"];

/** States whose change notifies the owner (spec: Facts tied to statuses, 3). */
export const notifiedStatuses = ["assigned", "in_progress", "suspended", "completed", "failed", "aborted", "cancelled"] as const;

export const observationTypes = ["flexible", "fixed_time", "time_based", "monitoring", "rise_to_set"] as const;
export const twilightKinds = ["civil", "nautical", "astronomical"] as const;
export type Twilight = (typeof twilightKinds)[number];
/** The sun's altitude below which each twilight has ended. */
export const twilightSunAltitude: Readonly<Record<Twilight, number>> = { civil: -6, nautical: -12, astronomical: -18 };

/** Numeric part by part: 3.10.0.0 is newer than 3.8.0.0. Missing parts count as 0. */
export function compareVersions(a: string, b: string): number {
  const left = a.split(".").map((part) => Number.parseInt(part, 10) || 0);
  const right = b.split(".").map((part) => Number.parseInt(part, 10) || 0);
  for (let index = 0; index < Math.max(left.length, right.length); index += 1) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}
