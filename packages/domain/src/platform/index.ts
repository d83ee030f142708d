// The door of the platform: what other rooms and packages may import.
import "./validation/zod-error-map";
export * from "./errors";
export { outOfSpaceError } from "./out-of-space";
export type { Deps } from "./deps";
export { inTransaction, type InTransaction } from "./transaction";
export {
  isDatabaseOutOfSpace,
  isDatabaseUnavailable,
  isDatabaseUnreachable,
  isStatementCancelled,
  isUniqueViolation,
  isUnstorableValue,
} from "./postgres-errors";
export { isStorageUnreachable, QueryScope, runInQueryScope } from "@meridian/db";
export type { Principal } from "./principal";
export { cursorParameterDescription } from "./validation/keyset-cursor";
export { appLink, listeningUrl, siteOrigin } from "./email/app-link";
export { enqueueEmail, type OutgoingEmail } from "./email/outbox";
export { pruneEmailOutbox } from "./email/outbox-retention";
export { pruneTrackedJobs } from "./jobs/job-retention";
export { createMailTransport, type MailTransport, type MailMessage } from "./email/transport";
export { deliverRecipientEmails } from "./email/deliver";
export { addJob } from "./jobs/add-job";
export {
  findJobBySubject,
  getJob,
  JOB_TRANSITIONS,
  listJobs,
  presentJob,
  recordJobStarted,
  reportJob,
  JobEnded,
  type JobProgress,
  type JobStatus,
  type JobView,
} from "./jobs/tracked-jobs";
export { beatWorkerHeartbeat, holdWorkerPresence, recoverStaleWorkers } from "./jobs/recover-stale-workers";
export { cancelJob, endJobForGood, reconcileTrackedJobs } from "./jobs/job-endings";
export { jobListQuerySchema, jobListSchema, jobViewSchema } from "./jobs/schemas";
export {
  ANNOUNCEMENT_EMAILS_TASK,
  ANNOUNCEMENT_STARTED_TASK,
  jobContracts,
  jobCrontab,
  SEND_EMAIL_TASK,
  type JobContract,
  type JobName,
  type JobPayload,
} from "./jobs/contracts";
export {
  publishEvent,
  publishUserEvent,
  publishObservatoryEvent,
  publishToAnnouncementRecipients,
  REALTIME_CHANNEL,
  type ObservatoryEvent,
  type ObservatoryMessage,
  type RealtimeEvent,
} from "./events/publish";
export { loadRealtimeEvents, readRealtimeNotice, recipientsAmong, type StoredRealtimeEvent } from "./events/read-event";
export { joinServerPresence, SERVER_APPLICATION_PREFIX, type ServerPresence } from "./system/server-presence";
export { LOCK_SPACES } from "./system/session-lock";
export { startRuntime, type Runtime } from "./runtime/start-runtime";
export { actorFromUser, actorOfPrincipal, systemActor, type Actor, type UserActor, type ObservatoryActor, type SystemActor } from "./actor";
export { createSecretBox, loadSecretsKey, type SecretBox } from "./secrets/secret-box";
export { CACHE_CHANNEL, type CacheChange } from "./cache/request-caches";
export { abortStaleUploads, staleUploads, STALE_UPLOAD_AGE_MS } from "./storage/stale-uploads";
export { removeAbandonedStoreWrites } from "./storage/abandoned-partials";
export { readBeforeIdle } from "./uploads/idle-timeout";
export { cronFiresAt, isCronExpression, nextCronTime } from "./system/cron";
