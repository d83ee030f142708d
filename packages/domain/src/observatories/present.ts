import type { ObservatoryDoc, ObservatoryPermissions, StoredDocument } from "@meridian/db";

export function presentObservatory(observatory: StoredDocument<ObservatoryDoc>, myPermissions?: ObservatoryPermissions) {
  const { doc } = observatory;
  return {
    id: observatory.id,
    name: doc.name,
    owner: doc.owner,
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
