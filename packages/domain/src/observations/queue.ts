import type { ObservationDoc, ObservatoryDoc, StoredDocument } from "@meridian/db";
import type { Twilight } from "@meridian/rules";
import { monitoringBlock } from "./monitoring";
import { airmass, darkInterval, isDark, moonDistance, nextRiseAbove, targetAltitude, type Location } from "./sky";

/** Why a pending observation is not sent now, in the order of docs/api-contract.md: the observation's own reasons before the observatory's. */
export const queueBlockCodes = [
  "BEFORE_WINDOW",
  "AFTER_WINDOW",
  "NOT_DARK",
  "TARGET_NOT_VISIBLE",
  "OBSERVATORY_BUSY",
  "OFFLINE",
  "DISPATCH_OFF",
  "PLUGIN_OUTDATED",
  "UNSAFE",
] as const;
export type QueueBlockCode = (typeof queueBlockCodes)[number];
export interface QueueBlock {
  code: QueueBlockCode;
  until: Date | null;
}

/** What dispatch needs to know of an observatory, read once per plan. */
export interface ObservatoryState {
  location: Location | null;
  online: boolean;
  dispatchEnabled: boolean;
  pluginCurrent: boolean;
  /** Safe and not on a weather hold. */
  safe: boolean;
  /** It holds an observation assigned or under way. */
  busy: boolean;
}

export function observatoryStateOf(options: { doc: ObservatoryDoc; pluginCurrent: boolean; busy: boolean }): ObservatoryState {
  const { doc } = options;
  const conditions = doc.conditions;
  return {
    location: doc.location,
    online: doc.connection.online,
    dispatchEnabled: doc.dispatchEnabled,
    pluginCurrent: options.pluginCurrent,
    safe: !conditions || (conditions.safe && !conditions.weatherHold),
    busy: options.busy,
  };
}

function observatoryBlock(state: ObservatoryState): QueueBlock | null {
  if (state.busy) return { code: "OBSERVATORY_BUSY", until: null };
  if (!state.online) return { code: "OFFLINE", until: null };
  if (!state.dispatchEnabled) return { code: "DISPATCH_OFF", until: null };
  if (!state.pluginCurrent) return { code: "PLUGIN_OUTDATED", until: null };
  if (!state.safe) return { code: "UNSAFE", until: null };
  return null;
}

/** The observation's own reason to wait at this moment, if any. */
function observationBlock(doc: ObservationDoc, location: Location | null, now: Date, darkness: (twilight: Twilight) => boolean): QueueBlock | null {
  if (doc.fixedTimeStart && now < new Date(doc.fixedTimeStart)) return { code: "BEFORE_WINDOW", until: new Date(doc.fixedTimeStart) };
  if (doc.fixedTimeEnd && now > new Date(doc.fixedTimeEnd)) return { code: "AFTER_WINDOW", until: null };
  const cadence = monitoringBlock({ doc, now });
  if (cadence) return cadence;
  if (!location) return null;
  const twilight = doc.constraints.twilight ?? "astronomical";
  if (!doc.bypassDarkness && !darkness(twilight)) return { code: "NOT_DARK", until: darkInterval({ location, twilight, at: now })?.start ?? null };
  const target = doc.targets[0]!;
  const minAltitude = doc.constraints.minAltitude ?? 30;
  const altitude = targetAltitude({ location, target, at: now });
  if (altitude < minAltitude) return { code: "TARGET_NOT_VISIBLE", until: nextRiseAbove({ location, target, altitude: minAltitude, at: now }) };
  if (doc.constraints.maxAirmass != null && airmass(altitude) > doc.constraints.maxAirmass) return { code: "TARGET_NOT_VISIBLE", until: null };
  if (doc.constraints.moonDistance != null && moonDistance({ location, target, at: now }) < doc.constraints.moonDistance)
    return { code: "TARGET_NOT_VISIBLE", until: null };
  return null;
}

/**
 * The queue as dispatch sees it: pending observations in dispatch order (highest priority, then
 * oldest), each eligible now or blocked with the first reason that applies. Dispatch assigns the
 * first eligible one, and `GET /observatories/{id}/queue` shows this same plan, so the two cannot
 * disagree. `pending` must already be in dispatch order.
 */
export function planQueue(options: { state: ObservatoryState; pending: ReadonlyArray<StoredDocument<ObservationDoc>>; now: Date }) {
  const { state, pending, now } = options;
  const darkNow = new Map<Twilight, boolean>();
  const darkness = (twilight: Twilight) => {
    if (!darkNow.has(twilight)) darkNow.set(twilight, isDark({ location: state.location!, twilight, at: now }));
    return darkNow.get(twilight)!;
  };
  const shared = observatoryBlock(state);
  const items = pending.map((observation) => {
    const blockedBy = observationBlock(observation.doc, state.location, now, darkness) ?? shared;
    return { observation, eligible: blockedBy === null, blockedBy };
  });
  return { items, darkness: state.location ? darkInterval({ location: state.location, twilight: "astronomical", at: now }) : null };
}
