import type { ObservationDoc, StoredDocument } from "@meridian/db";
import { estimatedSeconds, type ObservatoryTiming } from "@meridian/rules";
import type { Observation } from "./schemas";

/**
 * The `observation` of docs/api-contract.md: the document with its id and times, and its estimate with its
 * observatory's timing settings as they are now (`observationTimings` reads them), so an estimate
 * follows a change of the settings.
 */
export function presentObservation(options: { observation: StoredDocument<ObservationDoc>; timing: ObservatoryTiming }): Observation {
  const { observation: stored, timing } = options;
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
    monitoring: doc.monitoring ?? null,
    monitoringRuns: doc.monitoringRuns ?? null,
    storageDestinationId: doc.storageDestinationId ?? null,
    estimatedSeconds: estimatedSeconds({ targets: doc.targets, timing }),
    stale: doc.staleReportedAt ? { status: doc.status, since: doc.statusChangedAt, reportedAt: doc.staleReportedAt } : null,
    createdAt: stored.createdAt.toISOString(),
    updatedAt: stored.updatedAt.toISOString(),
  };
}
