import type { Schedulable } from "../inputs";
import type { QueueBlock, QueueBlockCode } from "../queue";
import type { SkyModel } from "../sky-model";

/** How far ahead the network plan looks (docs/api-contract.md, "Network scheduling": `PLAN_HORIZON_HOURS`, default 72). */
export const PLAN_HORIZON_HOURS = 72;
/** The plan's step: an observation starts at an observatory's first free minute or on a five-minute boundary after it. */
export const PLAN_STEP_MS = 5 * 60_000;

/** An observatory as the network plan takes it. */
export interface NetworkObservatory {
  id: string;
  /** Its sky (null without a location: only the window then applies, as in dispatch). */
  model: SkyModel | null;
  /** The filters its plugin reported (`equipment.filters`); null when it reported none, which holds no observation back. */
  filters: ReadonlyArray<string> | null;
  /** When what is assigned or under way there is expected to end; the plan starts there then (or at `now`). */
  busyUntil: Date | null;
  /**
   * Why nothing is planned there: offline, unsafe or on a weather hold for longer than
   * `REASSIGN_AFTER_MINUTES`. Absent or null while it counts as available.
   */
  unavailable?: Extract<QueueBlockCode, "OFFLINE" | "UNSAFE"> | null;
}

/** A pending observation with the observatories it may run at. */
export interface NetworkObservation extends Schedulable {
  priority: number;
  /** One id for an observation pinned to an observatory. */
  candidateObservatoryIds: ReadonlyArray<string>;
  /** The filters its exposures ask for. */
  filters: ReadonlyArray<string>;
}

/** What is left of a project's allocation at an observatory (milliseconds) and the period it may be used in. */
export interface NetworkAllocation {
  observatoryId: string;
  projectId: string;
  leftMs: number;
  periodStart: Date;
  periodEnd: Date;
}

export interface NetworkPlanInput<Observation extends NetworkObservation = NetworkObservation> {
  now: Date;
  /** Defaults to PLAN_HORIZON_HOURS. */
  horizonHours?: number;
  observatories: ReadonlyArray<NetworkObservatory>;
  /** Pending observations in dispatch order (highest priority, then oldest, then id). */
  observations: ReadonlyArray<Observation>;
  /** Its estimate at that observatory (`estimatedSeconds` with that observatory's slew and readout), in milliseconds. */
  durationMs(observation: Observation, observatoryId: string): number;
  /** Allocated projects per observatory; a project without one is unlimited there. */
  allocations?: ReadonlyArray<NetworkAllocation>;
}

/** One planned run: an observation (a monitoring one may run several times: `run` counts from 0) at an observatory. */
export interface NetworkBlock<Observation extends NetworkObservation = NetworkObservation> {
  observation: Observation;
  observatoryId: string;
  run: number;
  start: Date;
  end: Date;
}

/** Why an observation is not planned at one of its candidates, or why the plan leaves it waiting there (the queue's codes). */
export interface NetworkReason extends Pick<QueueBlock, "limit" | "at" | "highestAltitude" | "windowInDaylight"> {
  observatoryId: string;
  code: QueueBlockCode;
  until: Date | null;
  /** PLANNED_ELSEWHERE: where the plan runs it. */
  plannedAt?: string;
}

export interface NetworkPlan<Observation extends NetworkObservation = NetworkObservation> {
  start: Date;
  horizonEnd: Date;
  /** Σ priority × (end − start) in seconds over `blocks`: what the plan maximizes. */
  objective: number;
  blocks: NetworkBlock<Observation>[];
  /** Each observation with no block, with one reason per candidate observatory. */
  unscheduled: Array<{ observation: Observation; reasons: NetworkReason[] }>;
}
