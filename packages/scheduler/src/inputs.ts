import type { Twilight } from "@meridian/rules";
import type { MonitoringCadence } from "@meridian/rules/observations";

/**
 * What the engine reads of an observation: its project, first target, the filters its exposures ask
 * for, constraints, window, darkness bypass and monitoring cadence. The domain's stored documents have these fields (and more), so it
 * passes them as they are; the engine never loads or writes one.
 */
export interface SchedulingDoc {
  projectId: string;
  targets: ReadonlyArray<{ ra: number; dec: number; exposures: ReadonlyArray<{ filter: string }> }>;
  constraints: { minAltitude?: number; maxAirmass?: number | null; moonDistance?: number | null; twilight?: Twilight };
  fixedTimeStart: string | null;
  fixedTimeEnd: string | null;
  bypassDarkness: boolean;
  monitoring?: MonitoringCadence | null;
  monitoringRuns?: { count: number; lastEndedAt: string };
}

/** An observation as the engine takes it: an id and its document. */
export interface Schedulable {
  id: string;
  doc: SchedulingDoc;
}

/** What is left of an allocated project's time at an observatory, and when its period ends. */
export interface Allowance {
  leftMs: number;
  until: Date | null;
}
