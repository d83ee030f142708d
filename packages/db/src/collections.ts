import {
  announcementDocSchema,
  announcementRecipientDocSchema,
  apiKeyDocSchema,
  auditLogDocSchema,
  jobDocSchema,
  emailOutboxDocSchema,
  observatoryDocSchema,
  observatoryHistoryDocSchema,
  observatoryMemberDocSchema,
  organizationDocSchema,
  organizationMemberDocSchema,
  projectDocSchema,
  projectMemberDocSchema,
  passwordResetDocSchema,
  emailChangeDocSchema,
  sessionDocSchema,
  settingDocSchema,
  userDocSchema,
} from "./documents";
import { fileDocSchema, observationDocSchema, observationHistoryDocSchema, observatoryKeyDocSchema, pushSubscriptionDocSchema } from "./observation-documents";
import { backupDocSchema } from "./backup-documents";
import { invitationDocSchema } from "./invitation-documents";
import { integrityIssueDocSchema, integrityScanDocSchema } from "./integrity-documents";
import { defineCollection } from "./repository";
import {
  announcementRecipients,
  announcements,
  apiKeys,
  auditLog,
  backups,
  jobs,
  emailOutbox,
  observatories,
  observatoryHistory,
  observatoryMembers,
  organizationMembers,
  organizations,
  projectMembers,
  projects,
  passwordResets,
  emailChanges,
  sessions,
  settings,
  users,
  observations,
  observationHistory,
  files,
  observatoryKeys,
  pushSubscriptions,
  integrityScans,
  integrityIssues,
  invitations,
} from "./schema";

export const usersCollection = defineCollection({
  table: users,
  schema: userDocSchema,
  idPrefix: "usr",
  keys: (doc) => ({ emailLower: doc.email.toLowerCase() }),
});

export const sessionsCollection = defineCollection({
  table: sessions,
  schema: sessionDocSchema,
  idPrefix: "ses",
  keys: (doc) => ({ userId: doc.userId, tokenHash: doc.tokenHash, expiresAt: new Date(doc.expiresAt) }),
});

export const passwordResetsCollection = defineCollection({
  table: passwordResets,
  schema: passwordResetDocSchema,
  idPrefix: "pwr",
  keys: (doc) => ({ userId: doc.userId, tokenHash: doc.tokenHash }),
});

/**
 * A pending change of sign-in address holds a credential (its link), like a password reset: not in
 * `collections`, so backups leave it out.
 */
export const emailChangesCollection = defineCollection({
  table: emailChanges,
  schema: emailChangeDocSchema,
  idPrefix: "emc",
  keys: (doc) => ({ userId: doc.userId, tokenHash: doc.tokenHash }),
});

/**
 * Invitations are credentials, like password-reset links: not in `collections`, so backups leave
 * them out and a restore voids the pending ones (the inviter sends them again).
 */
export const invitationsCollection = defineCollection({
  table: invitations,
  schema: invitationDocSchema,
  idPrefix: "inv",
  keys: (doc) => ({
    scopeKind: doc.grant.kind,
    scopeId: doc.scopeId,
    emailLower: doc.email.toLowerCase(),
    tokenHash: doc.tokenHash,
    status: doc.status,
  }),
  fieldColumns: { status: invitations.status },
});

export const apiKeysCollection = defineCollection({
  table: apiKeys,
  schema: apiKeyDocSchema,
  idPrefix: "key",
  keys: (doc) => ({ userId: doc.userId, keyHash: doc.keyHash }),
});

/** An address as a recipient's messages are grouped by: one queue and one sequence per mailbox, whatever the case. */
export const emailRecipientKey = (address: string) => address.trim().toLowerCase();

export const emailOutboxCollection = defineCollection({
  table: emailOutbox,
  schema: emailOutboxDocSchema,
  idPrefix: "eml",
  keys: (doc) => ({ status: doc.status, recipient: emailRecipientKey(doc.to) }),
  fieldColumns: { status: emailOutbox.status },
});

export const settingsCollection = defineCollection({
  table: settings,
  schema: settingDocSchema,
  idPrefix: "set",
  keys: () => ({}),
});

export const organizationsCollection = defineCollection({
  table: organizations,
  schema: organizationDocSchema,
  idPrefix: "org",
  keys: (doc) => ({ shortNameLower: doc.shortName.toLowerCase(), ownerId: doc.ownerId }),
});

export const organizationMembersCollection = defineCollection({
  table: organizationMembers,
  schema: organizationMemberDocSchema,
  idPrefix: "orm",
  keys: (doc) => ({ organizationId: doc.organizationId, userId: doc.userId }),
});

export const observatoriesCollection = defineCollection({
  table: observatories,
  schema: observatoryDocSchema,
  idPrefix: "obs",
  keys: (doc) => ({ ownerKind: doc.owner.kind, ownerId: doc.owner.id }),
});

export const observatoryMembersCollection = defineCollection({
  table: observatoryMembers,
  schema: observatoryMemberDocSchema,
  idPrefix: "obm",
  keys: (doc) => ({ observatoryId: doc.observatoryId, memberKind: doc.memberKind, memberId: doc.memberId }),
});

export const projectsCollection = defineCollection({
  table: projects,
  schema: projectDocSchema,
  idPrefix: "prj",
  keys: (doc) => ({ ownerId: doc.ownerId, organizationId: doc.organizationId }),
});

export const projectMembersCollection = defineCollection({
  table: projectMembers,
  schema: projectMemberDocSchema,
  idPrefix: "prm",
  keys: (doc) => ({ projectId: doc.projectId, userId: doc.userId }),
});

export const observatoryHistoryCollection = defineCollection({
  table: observatoryHistory,
  schema: observatoryHistoryDocSchema,
  idPrefix: "ohi",
  keys: (doc) => ({ observatoryId: doc.observatoryId }),
});

export const auditLogCollection = defineCollection({
  table: auditLog,
  schema: auditLogDocSchema,
  idPrefix: "aud",
  keys: (doc) => ({ actorId: doc.actorId, targetId: doc.target.id, scopeKind: doc.scope.kind, scopeId: doc.scope.id }),
});

export const announcementsCollection = defineCollection({
  table: announcements,
  schema: announcementDocSchema,
  idPrefix: "ann",
  fieldColumns: {
    scope: announcements.scope,
    scopeId: announcements.scopeId,
    status: announcements.status,
    createdBy: announcements.createdBy,
    startsAt: announcements.startsAt,
    expiresAt: announcements.expiresAt,
    recipientCount: announcements.recipientCount,
    acknowledgedCount: announcements.acknowledgedCount,
    emailPending: announcements.emailPending,
  },
  keys: (doc) => ({
    scope: doc.scope,
    scopeId: doc.scopeId,
    status: doc.status,
    createdBy: doc.createdBy,
    startsAt: new Date(doc.startsAt),
    expiresAt: doc.expiresAt ? new Date(doc.expiresAt) : null,
    recipientCount: doc.recipientCount,
    acknowledgedCount: doc.acknowledgedCount,
    emailPending: doc.emailPending,
  }),
});

const announcementRecipientsCollection = defineCollection({
  table: announcementRecipients,
  schema: announcementRecipientDocSchema,
  idPrefix: "anr",
  // The document holds only how the user was reached (`via`); the delivery and acknowledgment state
  // lives in columns alone (ADR 0009), so there is nothing in it to drift. Rows are written by
  // set-based SQL (announcements/create.ts): the id is `<announcementId>:<userId>`.
  keys: () => ({}),
});

export const jobsCollection = defineCollection({
  table: jobs,
  schema: jobDocSchema,
  idPrefix: "job",
  fieldColumns: { kind: jobs.kind, status: jobs.status, startedBy: jobs.startedBy, subjectId: jobs.subjectId },
  keys: (doc) => ({ kind: doc.kind, status: doc.status, startedBy: doc.startedBy, subjectId: doc.subjectId }),
});

export const observationsCollection = defineCollection({
  table: observations,
  schema: observationDocSchema,
  idPrefix: "obn",
  keys: (doc) => ({
    projectId: doc.projectId,
    observatoryId: doc.observatoryId,
    ownerId: doc.ownerId,
    status: doc.status,
    priority: doc.priority,
    statusChangedAt: new Date(doc.statusChangedAt),
  }),
});

export const observationHistoryCollection = defineCollection({
  table: observationHistory,
  schema: observationHistoryDocSchema,
  idPrefix: "obh",
  keys: (doc) => ({ observationId: doc.observationId }),
});

export const filesCollection = defineCollection({
  table: files,
  schema: fileDocSchema,
  idPrefix: "fil",
  keys: (doc) => ({ observationId: doc.observationId, objectKey: doc.objectKey }),
});

export const observatoryKeysCollection = defineCollection({
  table: observatoryKeys,
  schema: observatoryKeyDocSchema,
  idPrefix: "okey",
  keys: (doc) => ({ observatoryId: doc.observatoryId, keyHash: doc.keyHash }),
});

export const pushSubscriptionsCollection = defineCollection({
  table: pushSubscriptions,
  schema: pushSubscriptionDocSchema,
  idPrefix: "psub",
  keys: (doc) => ({ userId: doc.userId, endpoint: doc.endpoint }),
});

export const integrityScansCollection = defineCollection({
  table: integrityScans,
  schema: integrityScanDocSchema,
  idPrefix: "scn",
  keys: (doc) => ({ kind: doc.kind, status: doc.status }),
});

export const integrityIssuesCollection = defineCollection({
  table: integrityIssues,
  schema: integrityIssueDocSchema,
  idPrefix: "iss",
  keys: (doc) => ({ scanId: doc.scanId, severity: doc.severity, type: doc.type, collection: doc.collection, autoFixable: doc.autoFixable }),
});

export const backupsCollection = defineCollection({
  table: backups,
  schema: backupDocSchema,
  idPrefix: "bak",
  keys: (doc) => ({ status: doc.status }),
});

/** Every collection by its table name, for integrity scans and backups. */
export const collections = {
  users: usersCollection,
  sessions: sessionsCollection,
  api_keys: apiKeysCollection,
  email_outbox: emailOutboxCollection,
  settings: settingsCollection,
  organizations: organizationsCollection,
  organization_members: organizationMembersCollection,
  observatories: observatoriesCollection,
  observatory_members: observatoryMembersCollection,
  projects: projectsCollection,
  project_members: projectMembersCollection,
  observatory_history: observatoryHistoryCollection,
  audit_log: auditLogCollection,
  announcements: announcementsCollection,
  announcement_recipients: announcementRecipientsCollection,
  jobs: jobsCollection,
  observations: observationsCollection,
  observation_history: observationHistoryCollection,
  files: filesCollection,
  observatory_keys: observatoryKeysCollection,
  push_subscriptions: pushSubscriptionsCollection,
  integrity_scans: integrityScansCollection,
  integrity_issues: integrityIssuesCollection,
  backups: backupsCollection,
} as const;
