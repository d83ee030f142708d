import { timeDisplayChoices } from "@meridian/rules";
import { isoDate } from "@meridian/rules/fields";
import { frameGradingSchema } from "@meridian/rules/frames";
import { z } from "zod";

/**
 * One zod schema per document kind. The API validates writes with them and integrity scans
 * validate stored documents with the same schemas.
 */
export { isoDate };

export const notificationPreferencesSchema = z.object({
  email: z.boolean(),
  push: z.boolean(),
  systemEvents: z.boolean(),
  observationEvents: z.boolean(),
});

export const userDocSchema = z.object({
  email: z.string(),
  name: z.string(),
  passwordHash: z.string(),
  roles: z.array(z.enum(["serverAdmin", "organizationAdmin"])),
  notificationPreferences: notificationPreferencesSchema,
  /** Pushover-style push: the user key sealed (AES-256-GCM), its last characters for display, and the chosen devices. */
  pushover: z
    .object({ sealedUserKey: z.string(), userKeyHint: z.string(), devices: z.array(z.string()) })
    .nullable()
    .optional(),
  avatar: z.object({ key: z.string(), contentType: z.string(), sizeBytes: z.number().int(), updatedAt: isoDate }).nullable(),
  /** A server administrator disabled the account: no sign-in, no session or key works. Absent means enabled. */
  disabled: z.boolean().optional(),
  lastLoginAt: isoDate.nullable().optional(),
  /** Which zone the interface shows times in; absent means "observatory". */
  timeDisplay: z.enum(timeDisplayChoices).optional(),
});
export type UserDoc = z.infer<typeof userDocSchema>;

export const sessionDocSchema = z.object({
  userId: z.string(),
  tokenHash: z.string(),
  expiresAt: isoDate,
  userAgent: z.string().nullable(),
  ip: z.string().nullable(),
  /** Recorded at most once a minute. */
  lastUsedAt: isoDate.nullable().optional(),
});
export type SessionDoc = z.infer<typeof sessionDocSchema>;

/** A "forgot password" link: only the token's hash is kept; single use, one hour. */
export const passwordResetDocSchema = z.object({
  userId: z.string(),
  tokenHash: z.string(),
  expiresAt: isoDate,
  usedAt: isoDate.nullable(),
});
export type PasswordResetDoc = z.infer<typeof passwordResetDocSchema>;

/**
 * A change of sign-in address its owner asked for, waiting for the link mailed to the new address:
 * only the token's hash is kept; one per user, one hour, removed when used.
 */
export const emailChangeDocSchema = z.object({
  userId: z.string(),
  newEmail: z.string(),
  tokenHash: z.string(),
  expiresAt: isoDate,
});
export type EmailChangeDoc = z.infer<typeof emailChangeDocSchema>;

export const apiKeyDocSchema = z.object({
  userId: z.string(),
  name: z.string(),
  keyHash: z.string(),
  /** First characters of the key, kept so a user can tell keys apart without the secret. */
  prefix: z.string(),
  lastUsedAt: isoDate.nullable(),
  revokedAt: isoDate.nullable(),
  /** When the key stops working; absent (keys made before expiry existed) or null means never. */
  expiresAt: isoDate.nullable().optional(),
  /** When its owner was emailed that it expires soon (`api_key_expiry_notices`); absent: not yet, so each key is warned once. */
  expiryNoticeAt: isoDate.optional(),
});
export type ApiKeyDoc = z.infer<typeof apiKeyDocSchema>;

export const emailOutboxDocSchema = z.object({
  kind: z.string(),
  to: z.string(),
  subject: z.string(),
  text: z.string(),
  html: z.string().nullable(),
  replyTo: z.string().nullable(),
  status: z.enum(["pending", "sent", "failed"]),
  attempts: z.number().int(),
  sentAt: isoDate.nullable(),
  messageId: z.string().nullable(),
  lastError: z.string().nullable(),
});
export type EmailOutboxDoc = z.infer<typeof emailOutboxDocSchema>;

export const settingDocSchema = z.object({ value: z.unknown() });
export type SettingDoc = z.infer<typeof settingDocSchema>;

export const organizationTypes = ["university", "college", "high_school", "research_institute", "observatory", "company", "nonprofit", "other"] as const;
export const organizationPermissionKeys = [
  "can_manage_members",
  "can_manage_observatories",
  "can_manage_projects",
  "can_manage_billing",
  "can_manage_storage",
] as const;
import { observatoryPermissionKeys } from "@meridian/rules";

export { observatoryPermissionKeys };
export const externalStorageKinds = ["google_drive", "dropbox", "s3"] as const;
export const projectStatuses = ["active", "paused", "completed", "archived"] as const;

export const organizationPermissionsSchema = z.object(
  Object.fromEntries(organizationPermissionKeys.map((key) => [key, z.boolean()])) as Record<(typeof organizationPermissionKeys)[number], z.ZodBoolean>,
);
export type OrganizationPermissions = z.infer<typeof organizationPermissionsSchema>;
export const observatoryPermissionsSchema = z.object(
  Object.fromEntries(observatoryPermissionKeys.map((key) => [key, z.boolean()])) as Record<(typeof observatoryPermissionKeys)[number], z.ZodBoolean>,
);
export type ObservatoryPermissions = z.infer<typeof observatoryPermissionsSchema>;

export const externalStorageDocSchema = z.object({
  id: z.string(),
  kind: z.enum(externalStorageKinds),
  label: z.string(),
  /** Non-secret settings (bucket, folder, region...). */
  settings: z.record(z.string(), z.unknown()),
  /** AES-256-GCM sealed JSON of the secret settings; never returned by the API. */
  sealedSecrets: z.string().nullable(),
  secretKeys: z.array(z.string()),
});
export type ExternalStorageDoc = z.infer<typeof externalStorageDocSchema>;

export const organizationDocSchema = z.object({
  name: z.string(),
  shortName: z.string(),
  type: z.enum(organizationTypes),
  description: z.string().nullable(),
  contactEmail: z.string(),
  ownerId: z.string(),
  externalStorage: z.array(externalStorageDocSchema),
});
export type OrganizationDoc = z.infer<typeof organizationDocSchema>;

export const organizationMemberDocSchema = z.object({
  organizationId: z.string(),
  userId: z.string(),
  permissions: organizationPermissionsSchema,
});
export type OrganizationMemberDoc = z.infer<typeof organizationMemberDocSchema>;

const allocationSchema = z.object({
  projectId: z.string(),
  hours: z.number().positive(),
  periodStart: isoDate,
  periodEnd: isoDate,
  updatedAt: isoDate,
  updatedBy: z.string(),
});
export type AllocationDoc = z.infer<typeof allocationSchema>;

export const observatoryDocSchema = z.object({
  name: z.string(),
  owner: z.object({ kind: z.enum(["user", "organization"]), id: z.string() }),
  location: z.object({ latitude: z.number(), longitude: z.number(), elevation: z.number() }).nullable(),
  dispatchEnabled: z.boolean(),
  connection: z.object({
    online: z.boolean(),
    pluginVersion: z.string().nullable(),
    lastSeenAt: isoDate.nullable(),
    /** The connection that said hello last: an older one closing later must not take the observatory offline. */
    connectionId: z.string().optional(),
  }),
  /** What the plugin last reported of its safety monitor and weather; absent until it first does. */
  conditions: z.object({ safe: z.boolean(), safetyReason: z.string().nullable(), weatherHold: z.boolean(), weatherReason: z.string().nullable() }).optional(),
  /** The plugin's last reported system information and equipment configuration (free-form, as the plugin sends them). */
  systemInfo: z.unknown().optional(),
  equipment: z.unknown().optional(),
  /**
   * Set when the observatory was removed: the row stays so its observations, history and files keep
   * their readers and references, but it leaves every list and its own routes answer 404.
   */
  removedAt: isoDate.optional(),
  /**
   * IANA name; absent in documents written before observatories had one, which read as the zone
   * derived from their location (or UTC), as a write would have set it.
   */
  timeZone: z.string().optional(),
  /** What estimates assume; absent (or a field absent) means the defaults (`defaultObservatoryTiming`). */
  settings: z.object({ slewSeconds: z.number().optional(), readoutSeconds: z.number().optional() }).optional(),
  /** Observing time granted to projects here, one per project; a project without one is unlimited. */
  allocations: z.array(allocationSchema).optional(),
  /**
   * When it was created by the server's clock, from which an observatory that never connected counts as away (contract,
   * "Network scheduling"); absent on documents written before, which read as the row's `created_at` (`observatoryCreatedAt`).
   */
  createdAt: isoDate.optional(),
});
export type ObservatoryDoc = z.infer<typeof observatoryDocSchema>;

export const observatoryMemberDocSchema = z.object({
  observatoryId: z.string(),
  memberKind: z.enum(["user", "organization"]),
  memberId: z.string(),
  permissions: observatoryPermissionsSchema,
});
export type ObservatoryMemberDoc = z.infer<typeof observatoryMemberDocSchema>;

export const projectDocSchema = z.object({
  name: z.string(),
  status: z.enum(projectStatuses),
  ownerId: z.string(),
  organizationId: z.string().nullable(),
  /** How its frames are graded; absent: the contract's defaults. */
  frameGrading: frameGradingSchema.optional(),
});
export type ProjectDoc = z.infer<typeof projectDocSchema>;

export const projectMemberDocSchema = z.object({
  projectId: z.string(),
  userId: z.string(),
  role: z.enum(["admin", "member"]),
});
export type ProjectMemberDoc = z.infer<typeof projectMemberDocSchema>;

export const observatoryHistoryDocSchema = z.object({
  observatoryId: z.string(),
  type: z.string(),
  actorId: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
});
export type ObservatoryHistoryDoc = z.infer<typeof observatoryHistoryDocSchema>;

export const auditLogDocSchema = z.object({
  action: z.string(),
  actorId: z.string().nullable(),
  actorName: z.string().nullable(),
  target: z.object({ kind: z.string(), id: z.string(), name: z.string().nullable() }),
  /** The organization, observatory or project whose log this entry belongs to. */
  scope: z.object({ kind: z.enum(["system", "organization", "observatory", "project"]), id: z.string(), name: z.string().nullable() }),
  before: z.unknown(),
  after: z.unknown(),
});
export type AuditLogDoc = z.infer<typeof auditLogDocSchema>;

export const jobStatuses = ["queued", "running", "completed", "failed"] as const;
/**
 * A long job a person started (an email fan-out; later scans, backups, restores, cleanups), as
 * the worker running it reports it. `subjectId` names what it works on (an announcement, a backup).
 */
export const jobDocSchema = z.object({
  kind: z.string(),
  status: z.enum(jobStatuses),
  progress: z.object({ done: z.number().int().nonnegative(), total: z.number().int().nonnegative().nullable(), stage: z.string().nullable() }),
  result: z.unknown(),
  error: z.string().nullable(),
  startedBy: z.string().nullable(),
  subjectId: z.string().nullable(),
  startedAt: isoDate,
  finishedAt: isoDate.nullable(),
  /** When what a failed job held (locks, maintenance mode, side schemas, records marked running) was given back. */
  releasedAt: isoDate.nullable().optional(),
});
export type JobDoc = z.infer<typeof jobDocSchema>;

export const announcementScopes = ["system", "observatory", "organization", "project"] as const;
export const announcementSeverities = ["info", "warning", "critical"] as const;
export const announcementDeliveryTypes = ["message", "email", "both"] as const;
export const announcementStatuses = ["active", "acknowledged", "expired", "cancelled"] as const;
export const announcementTargetKinds = ["users", "observatories", "organizations", "projects"] as const;
/** How a recipient was reached; the first matching target kind wins when several match. */
export const announcementRecipientVia = ["all_users", "user", "observatory", "organization", "project", "scope"] as const;

const announcementTargetSchema = z.object({ all: z.boolean(), ids: z.array(z.string()) });
const announcementTargetsSchema = z.object(
  Object.fromEntries(announcementTargetKinds.map((kind) => [kind, announcementTargetSchema.optional()])) as Record<
    (typeof announcementTargetKinds)[number],
    z.ZodOptional<typeof announcementTargetSchema>
  >,
);

/**
 * `status`, `recipientCount` and `acknowledgedCount` are mirrored in key columns, which the
 * set-based statements update together with the document.
 */
export const announcementDocSchema = z.object({
  scope: z.enum(announcementScopes),
  scopeId: z.string().nullable(),
  scopeName: z.string().nullable(),
  title: z.string(),
  message: z.string(),
  severity: z.enum(announcementSeverities),
  deliveryType: z.enum(announcementDeliveryTypes),
  targets: announcementTargetsSchema.nullable(),
  startsAt: isoDate,
  expiresAt: isoDate.nullable(),
  status: z.enum(announcementStatuses),
  createdBy: z.string(),
  createdByName: z.string(),
  createdByEmail: z.string(),
  recipientCount: z.number().int(),
  acknowledgedCount: z.number().int(),
  cancellationReason: z.string().nullable(),
  cancelledAt: isoDate.nullable(),
  cancelledBy: z.string().nullable(),
  expiredAt: isoDate.nullable(),
  /** Emails of this announcement are still to be sent (mirrored in a key column). */
  emailPending: z.boolean().default(false),
});
export type AnnouncementDoc = z.infer<typeof announcementDocSchema>;

/** `skipped`: the announcement was cancelled before this message went out. */
export const announcementEmailStates = ["pending", "sending", "sent", "failed", "skipped"] as const;

/**
 * Why a user received an announcement. The row's identity (announcement_id, user_id, and the
 * id `<announcementId>:<userId>`) and its delivery state (acknowledged_at, seen_at, email_state,
 * emailed_at, email_attempts, email_last_error) live in typed columns only: creation writes one
 * row per user, so the document is as small as it can be, and state changes by set-based
 * statements without rewriting JSON (ADR 0009).
 */
export const announcementRecipientDocSchema = z.object({
  via: z.enum(announcementRecipientVia),
});
export type AnnouncementRecipientDoc = z.infer<typeof announcementRecipientDocSchema>;

/** One planned run in the network plan: an observation at an observatory (a monitoring one's `run` counts from 0). */
const networkPlanSlotSchema = z.object({
  observationId: z.string(),
  observatoryId: z.string(),
  name: z.string(),
  priority: z.number(),
  run: z.number().int(),
  start: isoDate,
  end: isoDate,
  /** The observation's row version (`xmin`) the plan read: dispatch knows the plan saw it as it is when its version is the same. */
  observationVersion: z.string().optional(),
});

/**
 * The network plan in force (the `network_plans` row `current`): what the planning job decided at
 * `computedAt` for the horizon, each observatory's dark periods in it, the planned runs, and why
 * each pending observation left out is not planned at each of its candidates.
 */
export const networkPlanDocSchema = z.object({
  computedAt: isoDate,
  horizonEnd: isoDate,
  objective: z.number(),
  observatories: z.array(
    z.object({
      observatoryId: z.string(),
      timeZone: z.string(),
      nights: z.array(z.object({ darkStart: isoDate, darkEnd: isoDate })),
      /** Away (offline, or unsafe or under a weather hold) past `REASSIGN_AFTER_MINUTES`: nothing is planned there. */
      unavailable: z.enum(["OFFLINE", "UNSAFE"]).nullable().optional(),
    }),
  ),
  slots: z.array(networkPlanSlotSchema),
  unscheduled: z.array(
    z.object({
      observationId: z.string(),
      /** As in a slot: the observation's row version the plan read. */
      observationVersion: z.string().optional(),
      /** The queue's reason at each candidate, with its details where it has them (as the night plan shows them). */
      reasons: z.array(
        z.object({
          observatoryId: z.string(),
          code: z.string(),
          until: isoDate.nullable(),
          limit: z.string().optional(),
          at: isoDate.optional(),
          highestAltitude: z.number().optional(),
          windowInDaylight: z.literal(true).optional(),
        }),
      ),
    }),
  ),
});
export type NetworkPlanDoc = z.infer<typeof networkPlanDocSchema>;
