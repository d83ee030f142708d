import type { ObservationStatus } from "@meridian/rules";
import type { BadgeTone } from "../components/Badge";
import type { RouterOutputs } from "../organizations/types";

export type Observation = RouterOutputs["observations"]["get"];

export const observationStatusInfo: Record<ObservationStatus, { label: string; tone: BadgeTone }> = {
  pending: { label: "Pending", tone: "slate" },
  paused: { label: "Paused", tone: "amber" },
  assigned: { label: "Assigned", tone: "indigo" },
  in_progress: { label: "In progress", tone: "sky" },
  suspended: { label: "Suspended", tone: "amber" },
  acquisition_complete: { label: "Acquisition complete", tone: "sky" },
  completed: { label: "Completed", tone: "emerald" },
  partially_completed: { label: "Partially completed", tone: "amber" },
  failed: { label: "Failed", tone: "red" },
  aborted: { label: "Aborted", tone: "red" },
  cancelled: { label: "Cancelled", tone: "slate" },
};

export const queueBlockLabels: Record<string, string> = {
  BEFORE_WINDOW: "Before its time window",
  AFTER_WINDOW: "Its time window has passed",
  NOT_DARK: "Not dark enough",
  TARGET_NOT_VISIBLE: "Target not visible",
  WOULD_NOT_FINISH: "Would not finish",
  ALLOCATION_EXHAUSTED: "Allocation used up",
  FILTER_MISSING: "Filter missing",
  OBSERVATORY_BUSY: "Observatory busy",
  OFFLINE: "Observatory offline",
  DISPATCH_OFF: "Dispatch switched off",
  PLUGIN_OUTDATED: "Plugin needs an update",
  UNSAFE: "Unsafe or weather hold",
};

export const typeLabels: Record<Observation["type"], string> = {
  flexible: "Flexible",
  fixed_time: "Fixed time",
  time_based: "Time based",
  monitoring: "Monitoring (repeats)",
  rise_to_set: "Rise to set",
};

/** Right ascension in hours, minutes and seconds, as observers read it. */
export function formatRa(degrees: number): string {
  const hours = degrees / 15;
  const h = Math.floor(hours);
  const m = Math.floor((hours - h) * 60);
  const s = ((hours - h) * 60 - m) * 60;
  return `${h}h ${String(m).padStart(2, "0")}m ${s.toFixed(1).padStart(4, "0")}s`;
}

export function formatDec(degrees: number): string {
  const sign = degrees < 0 ? "−" : "+";
  const value = Math.abs(degrees);
  const d = Math.floor(value);
  const m = Math.floor((value - d) * 60);
  const s = ((value - d) * 60 - m) * 60;
  return `${sign}${d}° ${String(m).padStart(2, "0")}′ ${s.toFixed(0).padStart(2, "0")}″`;
}

export const formatBytes = (bytes: number) =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 ** 2
      ? `${(bytes / 1024).toFixed(1)} KB`
      : bytes < 1024 ** 3
        ? `${(bytes / 1024 ** 2).toFixed(1)} MB`
        : `${(bytes / 1024 ** 3).toFixed(2)} GB`;

/**
 * The observatory whose clocks show an observation's times and whose settings its estimate follows: where it runs, or while
 * one with candidates waits at none, its first candidate (as the API's estimate).
 */
export const homeObservatoryId = (observation: Pick<Observation, "observatoryId" | "candidateObservatoryIds">): string =>
  observation.observatoryId ?? observation.candidateObservatoryIds[0]!;

/** Where it runs, in words: its observatory's name, or while one with candidates waits, "any of N observatories (their names)". */
export function whereItRuns(
  observation: Pick<Observation, "observatoryId" | "candidateObservatoryIds">,
  nameOf: (id: string) => string | undefined,
): string | undefined {
  if (observation.observatoryId !== null) return nameOf(observation.observatoryId);
  const names = observation.candidateObservatoryIds.map((id) => nameOf(id) ?? "one you cannot view");
  return `any of ${names.length} observatories (${names.join(", ")})`;
}
