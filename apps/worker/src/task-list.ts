import { jobCrontab } from "@meridian/domain/platform";
import type { TaskList } from "graphile-worker";
import type { TaskServices } from "./define-task";
import { abortStaleUploadsTask } from "./tasks/abort-stale-uploads";
import { analyseFrameTask } from "./tasks/analyse-frame";
import { announcementEmailsTask } from "./tasks/announcement-emails";
import { announcementStartedTask } from "./tasks/announcement-started";
import { announcementsMaintenanceTask } from "./tasks/announcements-maintenance";
import { backupCreateTask } from "./tasks/backup-create";
import { backupRestoreTask } from "./tasks/backup-restore";
import { backupScheduleTask } from "./tasks/backup-schedule";
import { backupVerifyTask } from "./tasks/backup-verify";
import { observationCleanupTask } from "./tasks/observation-cleanup";
import { purgeQuarantineTask } from "./tasks/purge-quarantine";
import { refreshAnalyticsTask } from "./tasks/refresh-analytics";
import { pruneRateLimitsTask } from "./tasks/prune-rate-limits";
import { pruneEmailOutboxTask } from "./tasks/prune-email-outbox";
import { pruneAuditLogTask } from "./tasks/prune-audit-log";
import { pruneAnnouncementsTask } from "./tasks/prune-announcements";
import { pruneIntegrityScansTask } from "./tasks/prune-integrity-scans";
import { pruneTrackedJobsTask } from "./tasks/prune-tracked-jobs";
import { pruneObservatoryHistoryTask } from "./tasks/prune-observatory-history";
import { pruneSessionsTask } from "./tasks/prune-sessions";
import { pruneExpiredLinksTask } from "./tasks/prune-expired-links";
import { apiKeyExpiryNoticesTask } from "./tasks/api-key-expiry-notices";
import { pruneRealtimeEventsTask } from "./tasks/prune-realtime-events";
import { reconcileJobsTask } from "./tasks/reconcile-jobs";
import { deliverFileTask } from "./tasks/deliver-file";
import { dispatchObservatoryTask } from "./tasks/dispatch-observatory";
import { integrityRepairTask } from "./tasks/integrity-repair";
import { integrityScanTask } from "./tasks/integrity-scan";
import { integrityScheduleTask } from "./tasks/integrity-schedule";
import { observationsMaintenanceTask } from "./tasks/observations-maintenance";
import { sendEmailTask } from "./tasks/send-email";
import { sendPushTask } from "./tasks/send-push";

export const tasks = [
  sendEmailTask,
  sendPushTask,
  pruneRateLimitsTask,
  pruneSessionsTask,
  pruneExpiredLinksTask,
  apiKeyExpiryNoticesTask,
  pruneEmailOutboxTask,
  pruneAuditLogTask,
  pruneAnnouncementsTask,
  pruneObservatoryHistoryTask,
  pruneIntegrityScansTask,
  pruneTrackedJobsTask,
  pruneRealtimeEventsTask,
  announcementEmailsTask,
  announcementStartedTask,
  announcementsMaintenanceTask,
  dispatchObservatoryTask,
  deliverFileTask,
  integrityScanTask,
  integrityRepairTask,
  integrityScheduleTask,
  purgeQuarantineTask,
  abortStaleUploadsTask,
  observationCleanupTask,
  backupCreateTask,
  backupVerifyTask,
  backupRestoreTask,
  backupScheduleTask,
  refreshAnalyticsTask,
  observationsMaintenanceTask,
  reconcileJobsTask,
  analyseFrameTask,
];

/** Derived from the job contracts' schedules. */
export const crontab = jobCrontab();

export function buildTaskList(services: TaskServices): TaskList {
  return Object.fromEntries(tasks.map((task) => [task.name, task.create(services)]));
}
