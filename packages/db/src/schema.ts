import { isFinalStatus, observationStatuses } from "@meridian/rules";
import { sql } from "drizzle-orm";
import { bigint, boolean, doublePrecision, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import type {
  AnnouncementDoc,
  JobDoc,
  NetworkPlanDoc,
  AnnouncementRecipientDoc,
  ApiKeyDoc,
  AuditLogDoc,
  EmailOutboxDoc,
  ObservatoryDoc,
  ObservatoryHistoryDoc,
  ObservatoryMemberDoc,
  OrganizationDoc,
  OrganizationMemberDoc,
  PasswordResetDoc,
  EmailChangeDoc,
  ProjectDoc,
  ProjectMemberDoc,
  SessionDoc,
  SettingDoc,
  UserDoc,
} from "./documents";
import type { BackupDoc } from "./backup-documents";
import type { InvitationDoc } from "./invitation-documents";
import type { IntegrityIssueDoc, IntegrityScanDoc } from "./integrity-documents";
import type { FileDoc, ObservationDoc, ObservationHistoryDoc, ObservatoryKeyDoc, PushSubscriptionDoc } from "./observation-documents";

/** Columns every collection shares: the document and its timestamps. */
const documentColumns = <Doc>() => ({
  id: text("id").primaryKey(),
  doc: jsonb("doc").$type<Doc>().notNull(),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

export const users = pgTable("users", { ...documentColumns<UserDoc>(), emailLower: text("email_lower").notNull() }, (table) => [
  uniqueIndex("users_email_lower_key").on(table.emailLower),
  // Announcement counts go to every server admin; finding them must not scan all users.
  index("users_server_admin_idx")
    .on(table.id)
    .where(sql`doc->'roles' ? 'serverAdmin'`),
]);

export const sessions = pgTable(
  "sessions",
  {
    ...documentColumns<SessionDoc>(),
    userId: text("user_id").notNull(),
    tokenHash: text("token_hash").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [uniqueIndex("sessions_token_hash_key").on(table.tokenHash), index("sessions_user_id_idx").on(table.userId)],
);

export const passwordResets = pgTable(
  "password_resets",
  {
    ...documentColumns<PasswordResetDoc>(),
    userId: text("user_id").notNull(),
    tokenHash: text("token_hash").notNull(),
  },
  (table) => [uniqueIndex("password_resets_token_hash_key").on(table.tokenHash), index("password_resets_user_id_idx").on(table.userId)],
);

/** Pending changes of sign-in address: at most one per user (the unique index holds it). */
export const emailChanges = pgTable(
  "email_changes",
  {
    ...documentColumns<EmailChangeDoc>(),
    userId: text("user_id").notNull(),
    tokenHash: text("token_hash").notNull(),
  },
  (table) => [uniqueIndex("email_changes_token_hash_key").on(table.tokenHash), uniqueIndex("email_changes_user_id_key").on(table.userId)],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    ...documentColumns<ApiKeyDoc>(),
    userId: text("user_id").notNull(),
    keyHash: text("key_hash").notNull(),
  },
  (table) => [uniqueIndex("api_keys_key_hash_key").on(table.keyHash), index("api_keys_user_id_idx").on(table.userId)],
);

/**
 * `recipient` is the address as the queues name it (trimmed, lower case); `seq` numbers the rows
 * in the order they were written, which is the order a recipient's messages are sent in.
 */
export const emailOutbox = pgTable(
  "email_outbox",
  {
    ...documentColumns<EmailOutboxDoc>(),
    status: text("status").notNull(),
    recipient: text("recipient").notNull(),
    seq: bigint("seq", { mode: "number" }).notNull().generatedAlwaysAsIdentity(),
  },
  (table) => [
    index("email_outbox_pending_idx")
      .on(table.createdAt)
      .where(sql`status = 'pending'`),
    index("email_outbox_recipient_pending_idx")
      .on(table.recipient, table.seq)
      .where(sql`status = 'pending'`),
  ],
);

export const settings = pgTable("settings", documentColumns<SettingDoc>());

/** Not a collection: sliding-window counters for rate limits, shared by every server process. */
export const rateLimitEvents = pgTable(
  "rate_limit_events",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    bucket: text("bucket").notNull(),
    key: text("key").notNull(),
    at: timestamp("at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (table) => [index("rate_limit_events_lookup_idx").on(table.bucket, table.key, table.at)],
);

/** Not a collection: events for WebSocket clients, written in the writer's transaction and announced by NOTIFY. */
export const realtimeEvents = pgTable(
  "realtime_events",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    userIds: text("user_ids").array().notNull(),
    /** Connected observatories the event is for (their `/ws/observatory` sockets), beside the users. */
    observatoryIds: text("observatory_ids")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    type: text("type").notNull(),
    data: jsonb("data").notNull(),
    /** Instead of listing user ids: every recipient of this announcement (resolved by the hub among its connected users). */
    announcementId: text("announcement_id"),
    /** Instead of listing user ids: every connected user (an event that says only when, such as a new network plan). */
    everyUser: boolean("every_user").notNull().default(false),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (table) => [index("realtime_events_created_at_idx").on(table.createdAt)],
);

/**
 * Not a collection: each worker process records that it is alive, for health checks and so that
 * another worker can tell when it died and free what it held (its graphile-worker ids lock jobs).
 */
export const workerHeartbeats = pgTable("worker_heartbeats", {
  workerId: text("worker_id").primaryKey(),
  graphileWorkerIds: text("graphile_worker_ids")
    .array()
    .notNull()
    .default(sql`'{}'::text[]`),
  startedAt: timestamp("started_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  lastSeenAt: timestamp("last_seen_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

/**
 * Not a collection: which connection of each observatory is the live one (a newer connection
 * takes the row over), and when it was last seen. Heartbeats touch this small row, at most once
 * a minute, instead of the observatory's document; the minute's sweep reads it to find
 * observatories whose server process died.
 */
export const observatoryConnections = pgTable("observatory_connections", {
  observatoryId: text("observatory_id").primaryKey(),
  connectionId: text("connection_id").notNull(),
  lastSeenAt: timestamp("last_seen_at", { withTimezone: true, mode: "date" }).notNull(),
});

/**
 * Not a collection: the network plan in force (one row, `current`), written whole by the one
 * planning job at the end of its transaction (a planning killed midway leaves the plan before it).
 * `revision` counts the plans made; the plan is derived data, remade after any change, so backups leave it out.
 */
export const networkPlans = pgTable("network_plans", {
  id: text("id").primaryKey(),
  computedAt: timestamp("computed_at", { withTimezone: true, mode: "date" }).notNull(),
  revision: bigint("revision", { mode: "number" }).notNull(),
  doc: jsonb("doc").$type<NetworkPlanDoc>().notNull(),
});

export const organizations = pgTable(
  "organizations",
  { ...documentColumns<OrganizationDoc>(), shortNameLower: text("short_name_lower").notNull(), ownerId: text("owner_id").notNull() },
  (table) => [uniqueIndex("organizations_short_name_lower_key").on(table.shortNameLower), index("organizations_owner_id_idx").on(table.ownerId)],
);

export const organizationMembers = pgTable(
  "organization_members",
  { ...documentColumns<OrganizationMemberDoc>(), organizationId: text("organization_id").notNull(), userId: text("user_id").notNull() },
  (table) => [
    uniqueIndex("organization_members_org_user_key").on(table.organizationId, table.userId),
    index("organization_members_user_id_idx").on(table.userId),
  ],
);

export const observatories = pgTable(
  "observatories",
  { ...documentColumns<ObservatoryDoc>(), ownerKind: text("owner_kind").notNull(), ownerId: text("owner_id").notNull() },
  (table) => [index("observatories_owner_idx").on(table.ownerKind, table.ownerId)],
);

export const observatoryMembers = pgTable(
  "observatory_members",
  {
    ...documentColumns<ObservatoryMemberDoc>(),
    observatoryId: text("observatory_id").notNull(),
    memberKind: text("member_kind").notNull(),
    memberId: text("member_id").notNull(),
  },
  (table) => [
    uniqueIndex("observatory_members_key").on(table.observatoryId, table.memberKind, table.memberId),
    index("observatory_members_member_idx").on(table.memberKind, table.memberId),
  ],
);

export const projects = pgTable(
  "projects",
  { ...documentColumns<ProjectDoc>(), ownerId: text("owner_id").notNull(), organizationId: text("organization_id") },
  (table) => [index("projects_owner_id_idx").on(table.ownerId), index("projects_organization_id_idx").on(table.organizationId)],
);

export const projectMembers = pgTable(
  "project_members",
  { ...documentColumns<ProjectMemberDoc>(), projectId: text("project_id").notNull(), userId: text("user_id").notNull() },
  (table) => [uniqueIndex("project_members_key").on(table.projectId, table.userId), index("project_members_user_id_idx").on(table.userId)],
);

export const observatoryHistory = pgTable(
  "observatory_history",
  { ...documentColumns<ObservatoryHistoryDoc>(), observatoryId: text("observatory_id").notNull() },
  (table) => [index("observatory_history_observatory_idx").on(table.observatoryId, table.createdAt)],
);

export const auditLog = pgTable(
  "audit_log",
  {
    ...documentColumns<AuditLogDoc>(),
    actorId: text("actor_id"),
    targetId: text("target_id").notNull(),
    scopeKind: text("scope_kind").notNull(),
    scopeId: text("scope_id").notNull(),
  },
  (table) => [
    index("audit_log_scope_idx").on(table.scopeKind, table.scopeId, table.createdAt),
    index("audit_log_actor_idx").on(table.actorId, table.createdAt),
    index("audit_log_target_idx").on(table.targetId, table.createdAt),
    index("audit_log_created_at_idx").on(table.createdAt),
  ],
);

const timestampColumn = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const announcements = pgTable(
  "announcements",
  {
    ...documentColumns<AnnouncementDoc>(),
    scope: text("scope").notNull(),
    scopeId: text("scope_id"),
    status: text("status").notNull(),
    createdBy: text("created_by").notNull(),
    startsAt: timestampColumn("starts_at").notNull(),
    expiresAt: timestampColumn("expires_at"),
    recipientCount: integer("recipient_count").notNull(),
    acknowledgedCount: integer("acknowledged_count").notNull(),
    /** Some recipient's email is still to be sent: the minute sweep resumes stalled delivery from here. */
    emailPending: boolean("email_pending").notNull().default(false),
  },
  (table) => [
    index("announcements_scope_idx").on(table.scope, table.scopeId, table.createdAt),
    index("announcements_status_idx").on(table.status, table.createdAt),
    index("announcements_due_expiry_idx")
      .on(table.expiresAt)
      .where(sql`status = 'active' and expires_at is not null`),
    index("announcements_email_pending_idx")
      .on(table.startsAt)
      .where(sql`email_pending`),
  ],
);

/**
 * One row per (announcement, user); the id is `<announcementId>:<userId>`, so a user can never be
 * listed twice, "this user's row of that announcement" is a primary-key lookup, and "every row
 * of that announcement" is a primary-key range (the id uses the "C" collation, set in migration
 * 0004, so the prefix range holds on any database). The primary key is the only index, on
 * purpose: creation writes up to one row per registered user (ADR 0009).
 */
export const announcementRecipients = pgTable("announcement_recipients", {
  ...documentColumns<AnnouncementRecipientDoc>(),
  announcementId: text("announcement_id").notNull(),
  userId: text("user_id").notNull(),
  acknowledgedAt: timestampColumn("acknowledged_at"),
  seenAt: timestampColumn("seen_at"),
  emailState: text("email_state"),
  emailedAt: timestampColumn("emailed_at"),
  emailClaimedAt: timestampColumn("email_claimed_at"),
  /** The worker holding the claim, so one found dead gives its claims back at once instead of after the lease. */
  emailClaimedBy: text("email_claimed_by"),
  emailAttempts: integer("email_attempts").notNull().default(0),
  emailLastError: text("email_last_error"),
});

/** Long jobs people started, with the progress their worker reports (`jobs` collection). */
export const jobs = pgTable(
  "jobs",
  {
    ...documentColumns<JobDoc>(),
    kind: text("kind").notNull(),
    status: text("status").notNull(),
    startedBy: text("started_by"),
    subjectId: text("subject_id"),
  },
  (table) => [index("jobs_created_at_idx").on(table.createdAt), index("jobs_subject_idx").on(table.subjectId, table.kind)],
);

/**
 * An observation a later move can still leave, as SQL on `status`: one text for the partial index
 * below and the queries that must use it (a project's cap), so the planner can match them.
 */
export const unfinishedObservationStatus = sql.raw(
  `status in (${observationStatuses
    .filter((status) => !isFinalStatus(status))
    .map((status) => `'${status}'`)
    .join(", ")})`,
);

export const observations = pgTable(
  "observations",
  {
    ...documentColumns<ObservationDoc>(),
    projectId: text("project_id").notNull(),
    /** Where it runs: its one observatory, or (with candidates) the one it was assigned to; null while one with candidates waits. */
    observatoryId: text("observatory_id"),
    ownerId: text("owner_id").notNull(),
    status: text("status").notNull(),
    priority: integer("priority").notNull(),
    statusChangedAt: timestampColumn("status_changed_at").notNull(),
    /**
     * The name and every target name, one a line, for `?q`: computed by the database from the
     * document (`observation_search_text`, migration 0017), so it cannot drift and rows written by
     * plain SQL or restored from an archive made before it existed get it too.
     */
    searchText: text("search_text").generatedAlwaysAs(sql`observation_search_text(doc)`),
    /**
     * Every one- and two-character piece of the lower-cased search text (migration 0018): a `?q` of
     * one or two characters has no trigram for the index above, so without these it reads every row.
     */
    searchGrams: text("search_grams")
      .array()
      .generatedAlwaysAs(sql`observation_search_grams(observation_search_text(doc))`),
    /**
     * Every observatory it may run at (migration 0024): the document's `candidateObservatoryIds`, else `[observatoryId]` (a
     * document written before candidates existed). Computed by the database, so rows written by plain SQL or restored from an
     * older archive get it too, and the list's and the queue's filters and the readers' rule cannot drift from the document.
     */
    candidateObservatoryIds: text("candidate_observatory_ids")
      .array()
      .notNull()
      .generatedAlwaysAs(sql`observation_candidate_observatory_ids(doc)`),
  },
  (table) => [
    // Dispatch order at one observatory: its pending observations, highest priority first, then oldest.
    index("observations_dispatch_idx").on(table.observatoryId, table.status, table.priority.desc(), table.createdAt, table.id),
    index("observations_project_idx").on(table.projectId, table.createdAt),
    // A project's cap counts its unfinished observations at every creation: without this it would read its whole history.
    index("observations_project_unfinished_idx").on(table.projectId).where(unfinishedObservationStatus),
    index("observations_owner_idx").on(table.ownerId, table.createdAt),
    index("observations_status_idx").on(table.status, table.statusChangedAt),
    // The list's sorts, each paged by (key, id) in either direction.
    index("observations_created_idx").on(table.createdAt, table.id),
    index("observations_priority_idx").on(table.priority, table.id),
    index("observations_status_changed_idx").on(table.statusChangedAt, table.id),
    // Substring search, case-insensitive (ILIKE '%q%'), over name and target names.
    index("observations_search_idx").using("gin", sql`${table.searchText} gin_trgm_ops`),
    index("observations_search_grams_idx").using("gin", table.searchGrams),
    // "Has X among its candidates": the list's observatory filter, its readers' rule and the waiting ones of a queue.
    index("observations_candidates_idx").using("gin", table.candidateObservatoryIds),
    // What waits with candidates at none (dispatch's read at each candidate): few rows, apart from the dispatch order's.
    index("observations_waiting_candidates_idx")
      .using("gin", table.candidateObservatoryIds)
      .where(sql`observatory_id is null and status = 'pending'`),
  ],
);

export const observationHistory = pgTable(
  "observation_history",
  { ...documentColumns<ObservationHistoryDoc>(), observationId: text("observation_id").notNull() },
  (table) => [index("observation_history_observation_idx").on(table.observationId, table.createdAt)],
);

export const files = pgTable(
  "files",
  {
    ...documentColumns<FileDoc>(),
    observationId: text("observation_id").notNull(),
    objectKey: text("object_key").notNull(),
    /**
     * What `GET /frames` searches by, computed by the database from the document's `frame` (migration
     * 0023): the analysis, a regrade's SQL and a new analysis all write only the document, and
     * these follow it, whoever wrote it. Null for a file that is not a frame.
     */
    frameStatus: text("frame_status").generatedAlwaysAs(sql`doc #>> '{frame,status}'`),
    frameGrade: text("frame_grade").generatedAlwaysAs(sql`doc #>> '{frame,grade}'`),
    frameFilter: text("frame_filter").generatedAlwaysAs(sql`lower(doc #>> '{frame,header,filter}')`),
    /** DATE-OBS as a moment (UTC, as FITS has it); null when absent or not an ISO date. */
    frameDateObs: timestampColumn("frame_date_obs").generatedAlwaysAs(sql`frame_date_obs(doc #>> '{frame,header,dateObs}')`),
    /** The solved centre, J2000 degrees; null unsolved. */
    frameRa: doublePrecision("frame_ra").generatedAlwaysAs(sql`(doc #>> '{frame,solution,ra}')::double precision`),
    frameDec: doublePrecision("frame_dec").generatedAlwaysAs(sql`(doc #>> '{frame,solution,dec}')::double precision`),
  },
  (table) => [
    index("files_observation_idx").on(table.observationId, table.createdAt),
    index("files_object_key_idx").on(table.objectKey),
    // The integrity storage check reads records in the byte order S3 lists keys in.
    index("files_object_key_bytes_idx").on(sql`${table.objectKey} collate "C"`, table.id),
    // The frame search's default order (newest upload first), frames only. Migration 0023 adds INCLUDE columns to this
    // index and the next (drizzle cannot say it): a search's page is chosen by an index-only scan.
    index("files_frames_created_idx")
      .on(table.createdAt.desc(), table.id.desc())
      .where(sql`frame_status is not null`),
    // Cone searches: the solved centre as a point (ra, dec) in a GiST index, searched with the boxes around a cone
    // (frame-search.ts); built into PostgreSQL, so no extension is needed on any server.
    index("files_frame_centre_idx")
      .using("gist", sql`point(${table.frameRa}, ${table.frameDec})`)
      .where(sql`frame_ra is not null`),
    index("files_frame_date_obs_idx")
      .on(table.frameDateObs, table.id)
      .where(sql`frame_date_obs is not null`),
  ],
);

export const observatoryKeys = pgTable(
  "observatory_keys",
  { ...documentColumns<ObservatoryKeyDoc>(), observatoryId: text("observatory_id").notNull(), keyHash: text("key_hash").notNull() },
  (table) => [uniqueIndex("observatory_keys_key_hash_key").on(table.keyHash), index("observatory_keys_observatory_idx").on(table.observatoryId)],
);

export const pushSubscriptions = pgTable(
  "push_subscriptions",
  { ...documentColumns<PushSubscriptionDoc>(), userId: text("user_id").notNull(), endpoint: text("endpoint").notNull() },
  (table) => [uniqueIndex("push_subscriptions_endpoint_key").on(table.endpoint), index("push_subscriptions_user_idx").on(table.userId)],
);

export const integrityScans = pgTable(
  "integrity_scans",
  { ...documentColumns<IntegrityScanDoc>(), kind: text("kind").notNull(), status: text("status").notNull() },
  (table) => [
    index("integrity_scans_created_at_idx").on(table.createdAt),
    // One scan of a kind at a time, on every process: a second start meets this index.
    uniqueIndex("integrity_scans_one_running_per_kind")
      .on(table.kind)
      .where(sql`status in ('queued', 'running')`),
  ],
);

export const integrityIssues = pgTable(
  "integrity_issues",
  {
    ...documentColumns<IntegrityIssueDoc>(),
    scanId: text("scan_id").notNull(),
    severity: text("severity").notNull(),
    type: text("type").notNull(),
    collection: text("collection").notNull(),
    autoFixable: boolean("auto_fixable").notNull(),
  },
  (table) => [index("integrity_issues_scan_idx").on(table.scanId, table.severity, table.id)],
);

/** Pending and ended invitations; one pending per scope and address (a newer one replaces it). */
export const invitations = pgTable(
  "invitations",
  {
    ...documentColumns<InvitationDoc>(),
    scopeKind: text("scope_kind").notNull(),
    scopeId: text("scope_id").notNull(),
    emailLower: text("email_lower").notNull(),
    tokenHash: text("token_hash").notNull(),
    status: text("status").notNull(),
  },
  (table) => [
    uniqueIndex("invitations_token_hash_key").on(table.tokenHash),
    uniqueIndex("invitations_pending_key")
      .on(table.scopeKind, table.scopeId, table.emailLower)
      .where(sql`status = 'pending'`),
    index("invitations_scope_idx").on(table.scopeKind, table.scopeId, table.createdAt),
  ],
);

export const backups = pgTable("backups", { ...documentColumns<BackupDoc>(), status: text("status").notNull() }, (table) => [
  index("backups_created_at_idx").on(table.createdAt),
]);

/**
 * Not a collection: the maintenance switch a restore holds while it replaces the data. Never in a
 * backup, so a restore cannot turn it off or on; a row means every write answers 503 MAINTENANCE.
 */
export const maintenance = pgTable("maintenance", {
  id: text("id").primaryKey(),
  reason: text("reason").notNull(),
  jobId: text("job_id"),
  since: timestamp("since", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});
