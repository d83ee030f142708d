import { wallClockOf } from "../../lib/zone-time";
import { coordinateText } from "../wizard/CoordinateField";
import { toInput, type ObservationDraft } from "../wizard/draft";
import { homeObservatoryId, type Observation } from "../labels";
import type { RouterInputs } from "../../organizations/types";

export type ObservationUpdate = RouterInputs["observations"]["update"]["update"];

/**
 * A stored observation as the wizard's draft, so its fields edit it with the wizard's own checks and words; its times on
 * the clocks of `zone`, which `toInput` reads them in.
 */
export function draftOf(observation: Observation, zone: string): ObservationDraft {
  const field = (iso: string | null | undefined) => (iso ? wallClockOf(iso, zone) : "");
  const { constraints, notifications } = observation;
  return {
    name: observation.name,
    projectId: observation.projectId,
    // The edit changes neither: where it runs stays as stored (its fields are read on its first observatory's clocks).
    where: "one",
    observatoryId: homeObservatoryId(observation),
    candidateObservatoryIds: [...observation.candidateObservatoryIds],
    storageDestinationId: observation.storageDestinationId ?? "",
    targets: observation.targets.map((target) => ({
      name: target.name,
      ra: coordinateText.ra(target.ra),
      dec: coordinateText.dec(target.dec),
      source: null,
      exposures: target.exposures.map((exposure) => ({
        filter: exposure.filter,
        exposureSeconds: String(exposure.exposureSeconds),
        count: String(exposure.count),
        binning: String(exposure.binning),
      })),
    })),
    type: observation.type,
    priority: String(observation.priority),
    fixedTimeStart: field(observation.fixedTimeStart),
    fixedTimeEnd: field(observation.fixedTimeEnd),
    twilight: constraints.twilight,
    minAltitude: String(constraints.minAltitude),
    maxAirmass: constraints.maxAirmass == null ? "" : String(constraints.maxAirmass),
    moonDistance: constraints.moonDistance == null ? "" : String(constraints.moonDistance),
    bypassDarkness: observation.bypassDarkness,
    email: notifications.email,
    push: notifications.push,
    states: [...notifications.states],
    intervalMinutes: String(observation.monitoring?.intervalMinutes ?? 60),
    monitoringUntil: field(observation.monitoring?.until),
    maxRuns: observation.monitoring?.maxRuns == null ? "" : String(observation.monitoring.maxRuns),
  };
}

/**
 * What PUT should change: the fields whose value differs from what the untouched draft would send,
 * so a field left alone (a window that has closed meanwhile, a position shown rounded, a time shown
 * to the minute or one the clocks show twice) is not sent.
 */
export function changedFields(original: ObservationDraft, draft: ObservationDraft, zone: string): ObservationUpdate {
  const before = toInput(original, zone) as Record<string, unknown>;
  const after = toInput(draft, zone) as Record<string, unknown>;
  const keys = [
    "name",
    "type",
    "priority",
    "targets",
    "constraints",
    "fixedTimeStart",
    "fixedTimeEnd",
    "bypassDarkness",
    "notifications",
    "monitoring",
  ] as const;
  return Object.fromEntries(
    keys.filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key])).map((key) => [key, after[key]]),
  ) as ObservationUpdate;
}
