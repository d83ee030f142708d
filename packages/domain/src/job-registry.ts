import { pruneExpiredLinksJob } from "./features/accounts/account-jobs";
import { refreshAnalyticsJob } from "./features/analytics/analytics-jobs";
import { announcementEmailsJob, announcementsMaintenanceJob, announcementStartedJob, pruneAnnouncementsJob } from "./features/announcements/announcement-jobs";
import { pruneAuditLogJob } from "./features/audit/audit-jobs";
import { apiKeyExpiryNoticesJob, pruneRateLimitsJob, pruneSessionsJob } from "./features/auth/auth-jobs";
import { backupCreateJob, backupRestoreJob, backupScheduleJob, backupVerifyJob } from "./features/backups/backup-jobs";
import { observationCleanupJob } from "./features/cleanup/cleanup-jobs";
import { abortStaleUploadsJob, deliverFileJob } from "./features/delivery/delivery-jobs";
import { pruneEmailOutboxJob, sendEmailJob } from "./platform/email/email-jobs";
import { pruneRealtimeEventsJob } from "./platform/events/event-jobs";
import { analyseFrameJob } from "./features/frames/frame-jobs";
import { integrityRepairJob, integrityScanJob, integrityScheduleJob, pruneIntegrityScansJob, purgeQuarantineJob } from "./features/integrity/integrity-jobs";
import { crontabOf, registerJobs, type DefinedJob } from "./platform/jobs/define-job";
import { pruneTrackedJobsJob, reconcileJobsJob } from "./platform/jobs/runtime-jobs";
import { sendPushJob } from "./features/notifications/push-jobs";
import { pruneObservatoryHistoryJob } from "./features/observatories/observatory-jobs";
import { dispatchObservatoryJob, observationsFailoverJob, observationsMaintenanceJob } from "./features/observations/observation-jobs";
import { networkPlanJob } from "./features/network/network-jobs";
// The door observatories declare and observations plug into (an observatory found silent by a job moves the observations
// it holds): loaded with the registry, so that a process running jobs has it whatever else it imports.
import "./features/observations";

/**
 * Every background job, by name: the composition root of the jobs. Each is defined beside the
 * feature that owns it (`defineJob`); the jobs runtime (`jobs/`) knows them only through this list,
 * registered here, and the worker's task list and crontab are made from it (`apps/worker`).
 */
export const jobRegistry = {
  send_email: sendEmailJob,
  announcement_emails: announcementEmailsJob,
  announcement_started: announcementStartedJob,
  announcements_maintenance: announcementsMaintenanceJob,
  prune_rate_limits: pruneRateLimitsJob,
  prune_sessions: pruneSessionsJob,
  prune_expired_links: pruneExpiredLinksJob,
  api_key_expiry_notices: apiKeyExpiryNoticesJob,
  prune_email_outbox: pruneEmailOutboxJob,
  prune_audit_log: pruneAuditLogJob,
  prune_announcements: pruneAnnouncementsJob,
  prune_observatory_history: pruneObservatoryHistoryJob,
  prune_integrity_scans: pruneIntegrityScansJob,
  prune_tracked_jobs: pruneTrackedJobsJob,
  send_push: sendPushJob,
  integrity_scan: integrityScanJob,
  integrity_repair: integrityRepairJob,
  observation_cleanup: observationCleanupJob,
  backup_create: backupCreateJob,
  backup_verify: backupVerifyJob,
  backup_restore: backupRestoreJob,
  backup_schedule: backupScheduleJob,
  purge_quarantine: purgeQuarantineJob,
  abort_stale_uploads: abortStaleUploadsJob,
  integrity_schedule: integrityScheduleJob,
  deliver_file: deliverFileJob,
  dispatch_observatory: dispatchObservatoryJob,
  network_plan: networkPlanJob,
  analyse_frame: analyseFrameJob,
  observations_maintenance: observationsMaintenanceJob,
  observations_failover: observationsFailoverJob,
  refresh_analytics: refreshAnalyticsJob,
  prune_realtime_events: pruneRealtimeEventsJob,
  reconcile_jobs: reconcileJobsJob,
} satisfies Record<string, DefinedJob>;

type Registered = typeof jobRegistry;

declare module "./platform/jobs/define-job" {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface JobRegistry extends Registered {}
}

/** Every job, as the worker's task list is made from them. */
export const registeredJobList: readonly DefinedJob[] = Object.values(jobRegistry);
registerJobs(registeredJobList);

/** graphile-worker's crontab, one line per scheduled job. */
export const jobCrontab = () => crontabOf(registeredJobList);
