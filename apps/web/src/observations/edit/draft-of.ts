import { coordinateText } from "../wizard/CoordinateField";
import { toInput, type ObservationDraft } from "../wizard/draft";
import type { Observation } from "../labels";
import type { RouterInputs } from "../../organizations/types";

export type ObservationUpdate = RouterInputs["observations"]["update"]["update"];

const pad = (value: number) => String(value).padStart(2, "0");

/** An ISO time as a `datetime-local` value in the browser's zone, as the wizard reads it back. */
function localInputOf(iso: string | null): string {
  if (!iso) return "";
  const date = new Date(iso);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A stored observation as the wizard's draft, so its fields edit it with the wizard's own checks and words. */
export function draftOf(observation: Observation): ObservationDraft {
  const { constraints, notifications } = observation;
  return {
    name: observation.name,
    projectId: observation.projectId,
    observatoryId: observation.observatoryId,
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
    fixedTimeStart: localInputOf(observation.fixedTimeStart),
    fixedTimeEnd: localInputOf(observation.fixedTimeEnd),
    twilight: constraints.twilight,
    minAltitude: String(constraints.minAltitude),
    maxAirmass: constraints.maxAirmass == null ? "" : String(constraints.maxAirmass),
    moonDistance: constraints.moonDistance == null ? "" : String(constraints.moonDistance),
    bypassDarkness: observation.bypassDarkness,
    email: notifications.email,
    push: notifications.push,
    states: [...notifications.states],
    intervalMinutes: String(observation.monitoring?.intervalMinutes ?? 60),
    monitoringUntil: localInputOf(observation.monitoring?.until ?? null),
    maxRuns: observation.monitoring?.maxRuns == null ? "" : String(observation.monitoring.maxRuns),
  };
}

/**
 * What PUT should change: the fields whose value differs from what the untouched draft would send,
 * so a field left alone (a window that has closed meanwhile, a position shown rounded) is not sent.
 */
export function changedFields(original: ObservationDraft, draft: ObservationDraft): ObservationUpdate {
  const before = toInput(original) as Record<string, unknown>;
  const after = toInput(draft) as Record<string, unknown>;
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
