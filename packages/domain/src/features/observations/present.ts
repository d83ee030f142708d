import { candidateObservatoryIdsOf, type ObservationDoc, type StoredDocument } from "@meridian/db";
import { estimatedSeconds, type ObservatoryTiming } from "@meridian/rules";
import type { ExposureProgress } from "./observation-progress";
import type { Observation } from "./schemas";

/**
 * The `observation` of docs/api-contract.md: the document with its id and times, and its estimate with its
 * observatory's timing settings as they are now (`observationTimings` reads them), so an estimate
 * follows a change of the settings, and its progress per exposure line (`progressOfObservations` counts its frames).
 */
export function presentObservation(options: {
  observation: StoredDocument<ObservationDoc>;
  timing: ObservatoryTiming;
  progress: ExposureProgress[];
}): Observation {
  const { observation: stored, timing, progress } = options;
  const { doc } = stored;
  return {
    id: stored.id,
    name: doc.name,
    projectId: doc.projectId,
    observatoryId: doc.observatoryId,
    candidateObservatoryIds: candidateObservatoryIdsOf(doc),
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
    progress,
    repeatOf: doc.repeatOf ?? null,
    repeatId: doc.repeatedAs ?? null,
    stale: doc.staleReportedAt ? { status: doc.status, since: doc.statusChangedAt, reportedAt: doc.staleReportedAt } : null,
    createdAt: stored.createdAt.toISOString(),
    updatedAt: stored.updatedAt.toISOString(),
  };
}
