import type { ObservatoryDoc, ObservatoryPermissions, StoredDocument } from "@meridian/db";
import { reportedFilters } from "@meridian/rules";
import { observatoryTimeZone, observatoryTiming, timeZoneAt } from "./time-and-timing";

/**
 * The read shape. `ownerName` only for callers who may view the observatory (see
 * `loadOwnerNames`). `lastSighting` is the time in the observatory's connection row
 * (`lastSightings`), which heartbeats keep without rewriting the document; the later of it and
 * the document's own is shown.
 */
export function presentObservatory(options: {
  observatory: StoredDocument<ObservatoryDoc>;
  myPermissions?: ObservatoryPermissions;
  ownerName?: string | null;
  lastSighting?: Date;
}) {
  const { observatory, myPermissions, ownerName, lastSighting } = options;
  const { doc } = observatory;
  const documented = doc.connection.lastSeenAt;
  const lastSeenAt = lastSighting && (!documented || lastSighting.getTime() > Date.parse(documented)) ? lastSighting.toISOString() : documented;
  return {
    id: observatory.id,
    name: doc.name,
    owner: { kind: doc.owner.kind, id: doc.owner.id, ...(ownerName ? { name: ownerName } : {}) },
    ...(doc.location ? { location: doc.location } : {}),
    dispatchEnabled: doc.dispatchEnabled,
    timeZone: observatoryTimeZone({ doc }),
    locationTimeZone: timeZoneAt({ location: doc.location }),
    settings: observatoryTiming({ doc }),
    connection: {
      online: doc.connection.online,
      ...(doc.connection.pluginVersion ? { pluginVersion: doc.connection.pluginVersion } : {}),
      ...(lastSeenAt ? { lastSeenAt } : {}),
    },
    ...(doc.conditions ? { conditions: doc.conditions } : {}),
    filters: reportedFilters(doc.equipment),
    createdAt: observatory.createdAt.toISOString(),
    ...(myPermissions ? { myPermissions } : {}),
  };
}
