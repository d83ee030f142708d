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
export * from "./auth/schemas";
export { signup } from "./auth/signup";
export { login } from "./auth/login";
export { authenticateToken } from "./auth/authenticate";
export type { Principal } from "./auth/principal";
export { createApiKey, listApiKeys, MAX_LIVE_API_KEYS, revokeApiKey } from "./auth/api-keys";
export { API_KEY_EXPIRY_NOTICE_DAYS, sendApiKeyExpiryNotices } from "./auth/api-key-expiry-notices";
export { deleteSessionByToken, MAX_LIVE_SESSIONS, pruneExpiredSessions, type ClientInfo } from "./auth/sessions";
export { pruneRateLimitEvents } from "./auth/rate-limit";
export * from "./users/schemas";
export { cursorParameterDescription } from "./validation/keyset-cursor";
export { presentUser, isServerAdmin } from "./users/present";
export { getProfile, updateProfile } from "./users/profile";
export { gettingStartedSchema, readGettingStarted, type GettingStarted } from "./users/getting-started";
export { setAvatar, getAvatar, detectImageType, MAX_AVATAR_BYTES } from "./users/avatar";
export { appLink, listeningUrl, siteOrigin } from "./email/app-link";
export { enqueueEmail, type OutgoingEmail } from "./email/outbox";
export { pruneEmailOutbox } from "./email/outbox-retention";
export { pruneObservatoryHistory } from "./observatories/history-retention";
export { pruneIntegrityScans } from "./integrity/scan-retention";
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
export { crontabOf, defineJob, type DefinedJob, type JobAttempt, type JobName, type JobPayload } from "./jobs/define-job";
export { jobTask } from "./jobs/job-task";
export { jobCrontab, jobRegistry, registeredJobList } from "./job-registry";
export { closeMailTransport } from "./email/pooled-transport";
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
export { checkHealth, type HealthReport } from "./health/check-health";
export { noteDatabaseOutOfSpace } from "./health/database-space";
export { ensureServerAdmin } from "./system/ensure-admin";
export { notifyServerStart, checkStarCatalog } from "./system/notify-start";
export { joinServerPresence, SERVER_APPLICATION_PREFIX, type ServerPresence } from "./system/server-presence";
export { LOCK_SPACES } from "./system/session-lock";
export { startRuntime, type Runtime } from "./runtime/start-runtime";
export { actorFromUser, actorOfPrincipal, systemActor, type Actor, type UserActor, type ObservatoryActor, type SystemActor } from "./actor";
export { createSecretBox, loadSecretsKey, type SecretBox } from "./secrets/secret-box";
export * from "./permissions/observatory-permissions";
export * from "./organizations/schemas";
export * from "@meridian/rules";
export {
  loadOrganizationAccess,
  requireOrganizationPermission,
  ALL_ORGANIZATION_PERMISSIONS,
  NO_ORGANIZATION_PERMISSIONS,
} from "./organizations/organization-access";
export {
  createOrganization,
  listOrganizations,
  getOrganization,
  updateOrganization,
  listOrganizationAudit,
  openExternalStorageSecrets,
  MAX_OWNED_ORGANIZATIONS,
  MAX_ORGANIZATION_MEMBERS,
  MAX_ORGANIZATION_MEMBERSHIPS,
} from "./organizations/organizations";
export {
  listOrganizationMembers,
  addOrganizationMember,
  updateOrganizationMember,
  removeOrganizationMember,
  transferOrganizationOwnership,
} from "./organizations/members";
export * from "./observatories/schemas";
export {
  createObservatory,
  listObservatories,
  getObservatory,
  getMyObservatoryPermissions,
  transferObservatoryOwnership,
  listObservatoryHistory,
  MAX_OWNED_OBSERVATORIES,
  MAX_ORGANIZATION_OBSERVATORIES,
  MAX_OBSERVATORY_USER_MEMBERS,
  MAX_OBSERVATORY_ORGANIZATION_MEMBERS,
} from "./observatories/observatories";
export { updateObservatory } from "./observatories/settings";
export {
  listObservatoryMembers,
  addObservatoryUser,
  updateObservatoryUser,
  removeObservatoryUser,
  addObservatoryOrganization,
  updateObservatoryOrganization,
  removeObservatoryOrganization,
} from "./observatories/members";
export * from "./projects/schemas";
export {
  createProject,
  listProjects,
  getProject,
  updateProject,
  listProjectMembers,
  addProjectMember,
  removeProjectMember,
  MAX_OWNED_PROJECTS,
  MAX_PROJECT_MEMBERSHIPS,
  MAX_PROJECT_MEMBERS,
} from "./projects/projects";
export { updateProjectMemberRole, deleteProject } from "./projects/project-lifecycle";
export { deleteOrganization } from "./organizations/delete-organization";
export { listAuditLog, type AuditFilter } from "./audit/list-audit";
export { pruneAuditLog } from "./audit/audit-retention";
export { pruneEndedAnnouncements } from "./announcements/retention";
export { findUserByEmail } from "./users/find-user";
export * from "./announcements/schemas";
export type { AnnouncementScopeRef, ScopedKind } from "./announcements/scope-access";
export { createSystemAnnouncement, createScopedAnnouncement, previewSystemRecipients, previewScopedRecipients } from "./announcements/create";
export { MAX_ACTIVE_ANNOUNCEMENTS, MAX_SHOWING_ANNOUNCEMENTS, announcementScopeLockKey } from "./announcements/active-cap";
export { cancelAnnouncement, acknowledgeAnnouncement, markAnnouncementsSeen, expireDueAnnouncements, announceStarted } from "./announcements/lifecycle";
export {
  listSystemAnnouncements,
  listScopeActiveAnnouncements,
  listScopeAnnouncementHistory,
  listPendingAnnouncements,
  listPendingAnnouncementsAsJson,
  listMyCurrentAnnouncements,
  countActiveObservatoryAnnouncements,
  activeObservatoryAnnouncements,
  getAnnouncementRecipients,
} from "./announcements/queries";
export { listManagedAnnouncements, getAnnouncementStats, listAnnouncementTargetOptions } from "./announcements/manage";
export { deliverAnnouncementEmails, runAnnouncementMaintenance } from "./announcements/emails";
export * from "./accounts/schemas";
export { listMySessions, revokeMySession, revokeOtherSessions } from "./accounts/user-sessions";
export { changePassword } from "./accounts/change-password";
export { requestPasswordReset, confirmPasswordReset } from "./accounts/password-reset";
export { pruneExpiredLinks } from "./accounts/link-retention";
export { requestEmailChange, confirmEmailChange, getPendingEmailChange, cancelEmailChange } from "./accounts/email-change";
export { listUsersForAdmin, updateUserByAdmin } from "./accounts/admin-users";
export { CACHE_CHANNEL, type CacheChange } from "./cache/request-caches";
export { hashSecret } from "./auth/tokens";
export * from "./observations/schemas";
export { presentObservation } from "./observations/present";
export { listObservationsAsJson, listObservationsCached } from "./observations/observation-pages";
export { DISPATCH_TRACE_CHANNEL, markDispatch, type DispatchMark, type DispatchStage } from "./observations/dispatch-trace";
export { presentObservations, presentOneObservation } from "./observations/timings";
export {
  createObservation,
  listObservations,
  getObservation,
  updateObservation,
  cancelObservation,
  changeObservationStatus,
  reportObservationStatus,
  listObservationHistory,
} from "./observations/observations";
export { dispatchObservatory, getObservatoryQueue, observatoriesAwaitingDispatch, statusesAtObservatory, unstartedAssignments } from "./observations/dispatch";
export { FORECAST_NIGHTS, PLAN_NIGHTS_AHEAD, forecastDraft, getObservationForecast, getObservatoryPlan } from "./observations/night-plan";
// The scheduling engine is @meridian/scheduler; these stay here for the code that took them from the domain.
export {
  nightOf,
  runDispatchForward,
  skyModel,
  planQueue,
  observatoryStateOf,
  queueBlockCodes,
  finishLimits,
  type ObservatoryState,
  targetAltitude,
} from "@meridian/scheduler";
export * from "./observatories/keys";
export {
  observatoryHello,
  observatoriesSeen,
  observatoryConfig,
  observatorySafety,
  observatoryWeather,
  observatoryGone,
  markSilentObservatoriesOffline,
  REPORT_LIMIT_BYTES,
  type GoneReason,
} from "./observatories/connection";
export { claimObservatoryConnection, CONNECTION_CLAIMED_EVENT, LAST_SEEN_WRITE_INTERVAL_MS, readPresence } from "./observatories/presence";
export * from "./system/server-settings";
export { queueDispatch, moveObservation } from "./observations/transitions";
export { uploadObservationFile, listObservationFiles, openObservationFile, presentFile, MAX_OBSERVATION_FILES } from "./observations/files";
export { MAX_UNFINISHED_OBSERVATIONS } from "./observations/insert";
export { openObservationArchive } from "./observations/files-archive";
export { exportObservations, csvField } from "./observations/observation-export";
export { observationSorts, type ObservationFilter, type ObservationSort } from "./observations/observation-query";
export { reportStaleObservations } from "./observations/stale-monitor";
export * from "./observations/operate";
export * from "./observations/bulk";
export { removeObservatory, OBSERVATORY_REMOVED_REASON } from "./observatories/remove";
export * from "./observatories/names";
export { deliverPush, shouldRetry, type PushOutcome } from "./notifications/deliver-push";
export { queuePush, notifySystemEvent, queueObservationNotifications } from "./notifications/notify";
export { webPushConfigured, type PushMessage, type ChannelResult } from "./notifications/push-channels";
export * from "./notifications/settings";
export { startIntegrityScan, runIntegrityScan, failIntegrityScan, scanOptionsFor, scannableCollections, THREADED_SCAN_DOCUMENTS } from "./integrity/scan";
export * from "./integrity/queries";
export { repairIntegrityIssue, purgeQuarantine, QUARANTINE_PREFIX, legacyCapturedFileKey } from "./integrity/repair";
export { startBulkRepair, runBulkRepair, failBulkRepair } from "./integrity/bulk-repair";
export { startScheduledScans } from "./integrity/schedule";
export * from "./cleanup/observation-cleanup";
export { analyticsSchema, readAnalytics, refreshAnalytics, ANALYTICS_DAYS, type Analytics } from "./analytics/analytics";
export { storageFindings } from "./integrity/storage-check";
export { abortStaleUploads, staleUploads, STALE_UPLOAD_AGE_MS } from "./storage/stale-uploads";
export { removeAbandonedStoreWrites } from "./storage/abandoned-partials";
export { readBeforeIdle } from "./uploads/idle-timeout";
export { cronFiresAt, isCronExpression, nextCronTime } from "./system/cron";
export * from "./backups/schemas";
export {
  startBackup,
  getBackup,
  listBackups,
  runBackup,
  failBackup,
  startBackupVerification,
  runBackupVerification,
  type ThenCleanup,
} from "./backups/backups";
export { startRestore, runRestore, RestoreRefused, RESTORED_COLLECTIONS } from "./backups/restore";
export { cleanUpBackups } from "./backups/retention";
export { startScheduledBackup } from "./backups/schedule";
export { ARCHIVED_COLLECTIONS } from "./backups/archive-io";
export { PARALLEL_SECTION_BYTES } from "./backups/side-tables";
export { readMaintenance, endMaintenance, refuseWritesDuringMaintenance, maintenanceStatusSchema, type MaintenanceStatus } from "./system/maintenance";
export {
  resolveTarget,
  searchTargets,
  targetMatchSchema,
  targetResolveQuerySchema,
  targetSearchQuerySchema,
  targetSearchResultSchema,
  TARGET_QUERY_MAX,
  TARGET_SEARCH_LIMIT,
  type TargetMatch,
} from "./targets/targets";
export { targetCatalogs, targetKinds, type TargetCatalog, type TargetKind } from "./targets/catalog-format";
export { deliverFile } from "./delivery/deliver-file";
export { abortStaleDestinationUploads } from "./delivery/left-uploads";
export { analyseFrame, frameAnalysisForbiddenFlags } from "./frames/analyse-frame";
export { analyseFileAgain } from "./frames/analyse-again";
export { repeatAfterAnalysis } from "./frames/repeat-rejected";
export { removeLeftoverWorkFolders } from "./frames/work-folders";
export { searchFrames } from "./frames/frame-search";
export { openFrameArchive } from "./frames/frame-archive";
export {
  frameArchiveRequestSchema,
  framePageSchema,
  frameSearchFields,
  MAX_ARCHIVE_FRAMES,
  MAX_CONE_RADIUS_DEG,
  type FrameSearchFilter,
} from "./frames/frame-search-schemas";
export { readFitsImage } from "./frames/fits-header";
export { retryFileDelivery, testStorageDestination } from "./delivery/operate-deliveries";
export { putAllocation, deleteAllocation, listAllocations, getProjectUsage } from "./allocations/allocations";
export * from "./invitations/schemas";
export { createInvitation, listInvitations, revokeInvitation, endScopeInvitations } from "./invitations/invitations";
export { acceptInvitation, previewInvitation } from "./invitations/accept";
export type { InvitationGrant, InvitationKind } from "@meridian/db";
