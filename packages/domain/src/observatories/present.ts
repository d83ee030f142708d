import type { ObservatoryDoc, ObservatoryPermissions, StoredDocument } from "@meridian/db";

/** An observatory as the API shows it; `ownerName` only for callers who may view it (see `loadOwnerNames`). */
export function presentObservatory(observatory: StoredDocument<ObservatoryDoc>, myPermissions?: ObservatoryPermissions, ownerName?: string) {
  const { doc } = observatory;
  return {
    id: observatory.id,
    name: doc.name,
    owner: { kind: doc.owner.kind, id: doc.owner.id, ...(ownerName ? { name: ownerName } : {}) },
    ...(doc.location ? { location: doc.location } : {}),
    dispatchEnabled: doc.dispatchEnabled,
    connection: {
      online: doc.connection.online,
      ...(doc.connection.pluginVersion ? { pluginVersion: doc.connection.pluginVersion } : {}),
      ...(doc.connection.lastSeenAt ? { lastSeenAt: doc.connection.lastSeenAt } : {}),
    },
    ...(doc.conditions ? { conditions: doc.conditions } : {}),
    createdAt: observatory.createdAt.toISOString(),
    ...(myPermissions ? { myPermissions } : {}),
  };
}
