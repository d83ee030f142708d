import type { ObservationDoc, StoredDocument } from "@meridian/db";
import type { Observation } from "./schemas";

/** The `observation` of docs/api-contract.md: the document with its id and times. */
export function presentObservation(stored: StoredDocument<ObservationDoc>): Observation {
  const { doc } = stored;
  return {
    id: stored.id,
    name: doc.name,
    projectId: doc.projectId,
    observatoryId: doc.observatoryId,
    ownerId: doc.ownerId,
    type: doc.type,
    priority: doc.priority,
    targets: doc.targets,
    constraints: doc.constraints,
    fixedTimeStart: doc.fixedTimeStart,
    fixedTimeEnd: doc.fixedTimeEnd,
    bypassDarkness: doc.bypassDarkness,
    notifications: doc.notifications,
    status: doc.status,
    statusReason: doc.statusReason,
    statusChangedAt: doc.statusChangedAt,
    isMonitoring: doc.isMonitoring,
    stale: doc.staleReportedAt ? { status: doc.status, since: doc.statusChangedAt, reportedAt: doc.staleReportedAt } : null,
    createdAt: stored.createdAt.toISOString(),
    updatedAt: stored.updatedAt.toISOString(),
  };
}
