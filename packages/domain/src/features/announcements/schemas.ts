import {
  announcementDeliveryTypes,
  announcementEmailStates,
  announcementRecipientVia,
  announcementScopes,
  announcementSeverities,
  announcementStatuses,
  announcementTargetKinds,
} from "@meridian/db";
import { isoDateInput } from "@meridian/rules/fields";
import { z } from "zod";
import { opaqueIdSchema, withoutControlCharacters } from "../users";
import { cursorParameterDescription } from "../../platform/validation/keyset-cursor";

/** More than this many ids of one kind is better expressed with `all`. */
const MAX_TARGET_IDS = 10_000;

const targetInputSchema = z
  .strictObject({
    all: z.boolean().default(false),
    ids: z.array(opaqueIdSchema).max(MAX_TARGET_IDS).default([]),
  })
  .meta({ id: "AnnouncementTargetInput" });

export const announcementTargetsInputSchema = z
  .strictObject(
    Object.fromEntries(announcementTargetKinds.map((kind) => [kind, targetInputSchema.optional()])) as Record<
      (typeof announcementTargetKinds)[number],
      z.ZodOptional<typeof targetInputSchema>
    >,
  )
  .meta({ id: "AnnouncementTargets", description: "Target kinds combine; each user is a recipient once." });
export type AnnouncementTargetsInput = z.infer<typeof announcementTargetsInputSchema>;

/**
 * In texts that keep line breaks and tabs (messages, cancellation reasons): other control
 * characters, and lone surrogates (PostgreSQL refuses NUL in text and lone surrogates in jsonb).
 */
export const FORBIDDEN_IN_TEXT = /[^\P{Cc}\t\n\r]|\p{Cs}/u;

const contentShape = {
  title: withoutControlCharacters(z.string().trim().min(1).max(200)),
  // Messages keep their line breaks and tabs; other control characters are refused.
  message: z
    .string()
    .trim()
    .min(1)
    .max(10_000)
    .refine((value) => !FORBIDDEN_IN_TEXT.test(value), "must not contain control characters"),
  severity: z.enum(announcementSeverities),
  deliveryType: z.enum(announcementDeliveryTypes),
  startsAt: isoDateInput.nullable().optional().describe("Before this time the announcement is scheduled and pending for nobody"),
  expiresAt: isoDateInput.nullable().optional().describe("Must lie in the future and after startsAt"),
};

export const scopedAnnouncementCreateSchema = z.strictObject(contentShape).meta({ id: "ScopedAnnouncementCreate" });
export type ScopedAnnouncementCreate = z.infer<typeof scopedAnnouncementCreateSchema>;

export const systemAnnouncementCreateSchema = z
  .strictObject({ ...contentShape, targets: announcementTargetsInputSchema })
  .meta({ id: "SystemAnnouncementCreate" });
export type SystemAnnouncementCreate = z.infer<typeof systemAnnouncementCreateSchema>;

export const recipientPreviewSchema = z.strictObject({ targets: announcementTargetsInputSchema }).meta({ id: "AnnouncementRecipientPreviewInput" });

export const cancelAnnouncementSchema = z
  .object({ reason: z.string().max(2_000).optional() })
  .meta({ id: "AnnouncementCancel", description: "`reason` must not be blank (400 REASON_REQUIRED)" });

const announcementStatusFilterSchema = z.enum(announcementStatuses);
export const announcementScopeSchema = z.enum(announcementScopes);
/** The scopes with their own id: every scope but `system`. */
export const scopedKindSchema = announcementScopeSchema.exclude(["system"]);

const targetOutputSchema = z.object({ all: z.boolean(), ids: z.array(z.string()) });

export const announcementSchema = z
  .object({
    id: z.string(),
    scope: z.enum(announcementScopes),
    scopeId: z.string().nullable(),
    scopeName: z.string().nullable().describe("Name of the observatory, organization or project (extension)"),
    title: z.string(),
    message: z.string(),
    severity: z.enum(announcementSeverities),
    startsAt: z.string(),
    expiresAt: z.string().nullable(),
    deliveryType: z.enum(announcementDeliveryTypes),
    targets: z
      .object(
        Object.fromEntries(announcementTargetKinds.map((kind) => [kind, targetOutputSchema.optional()])) as Record<
          (typeof announcementTargetKinds)[number],
          z.ZodOptional<typeof targetOutputSchema>
        >,
      )
      .nullable()
      .optional()
      .describe("System announcements, shown to senders only"),
    status: z.enum(announcementStatuses),
    createdAt: z.string(),
    createdBy: z.string(),
    createdByName: z.string().describe("Extension"),
    recipientCount: z.number().int(),
    acknowledgedCount: z.number().int(),
    cancellationReason: z.string().nullable(),
    cancelledAt: z.string().nullable(),
    acknowledgedAt: z.string().nullable().optional().describe("The caller's own acknowledgment, in the caller's lists (extension)"),
  })
  .meta({ id: "Announcement" });
export type Announcement = z.infer<typeof announcementSchema>;

export const announcementListSchema = z.object({ items: z.array(announcementSchema), nextCursor: z.string().nullable() }).meta({ id: "AnnouncementList" });

export const acknowledgmentSchema = z.object({ acknowledgedAt: z.string() }).meta({ id: "AnnouncementAcknowledgment" });

export const recipientsQuerySchema = z.object({
  status: z.enum(["pending", "acknowledged"]).optional(),
  sort: z.enum(["name", "email", "acknowledgedAt"]).default("name"),
  order: z.enum(["asc", "desc"]).default("asc"),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(200).optional().describe("Opaque; from nextCursor"),
});
export type RecipientsQuery = z.infer<typeof recipientsQuerySchema>;

export const recipientsViewSchema = z
  .object({
    items: z.array(
      z.object({
        userId: z.string(),
        email: z.string(),
        name: z.string(),
        status: z.enum(["pending", "acknowledged"]),
        acknowledgedAt: z.string().nullable(),
        emailedAt: z.string().nullable(),
        seenAt: z.string().nullable().describe("When the announcement was first shown in the app"),
        via: z.enum(announcementRecipientVia),
        emailState: z
          .enum(announcementEmailStates)
          .nullable()
          .describe("Extension: null when not emailed; `failed` after the server refused the address for good"),
        emailError: z.string().nullable().describe("Extension: the mail server's last answer when emailState is `failed`"),
      }),
    ),
    nextCursor: z.string().nullable(),
    counts: z.object({
      total: z.number().int(),
      acknowledged: z.number().int(),
      pending: z.number().int(),
      emailed: z.number().int(),
      seen: z.number().int(),
      emailFailed: z.number().int(),
    }),
    cancellation: z
      .object({ reason: z.string(), cancelledAt: z.string(), cancelledBy: z.string().nullable(), cancelledByName: z.string().nullable() })
      .nullable(),
  })
  .meta({ id: "AnnouncementRecipients" });
export type RecipientsView = z.infer<typeof recipientsViewSchema>;

export const recipientCountSchema = z.object({ recipientCount: z.number().int() }).meta({ id: "AnnouncementRecipientCount" });

export const markSeenSchema = z.strictObject({ ids: z.array(opaqueIdSchema).min(1).max(100) }).meta({ id: "AnnouncementsSeen" });

export const listQuerySchema = z.object({
  status: announcementStatusFilterSchema.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: withoutControlCharacters(z.string().max(200)).optional().describe(cursorParameterDescription),
});
export type AnnouncementListQuery = z.infer<typeof listQuerySchema>;

export const targetOptionKindSchema = z.enum(announcementTargetKinds);
export const targetOptionsSchema = z
  .object({ items: z.array(z.object({ id: z.string(), label: z.string(), detail: z.string().nullable() })), total: z.number().int() })
  .meta({ id: "AnnouncementTargetOptions" });

export const announcementStatsSchema = z
  .object({
    scopes: z.array(
      z.object({
        scope: z.enum(announcementScopes),
        scopeId: z.string().nullable(),
        scopeName: z.string().nullable(),
        active: z.number().int(),
        acknowledged: z.number().int(),
        expired: z.number().int(),
        cancelled: z.number().int(),
        pendingAcknowledgments: z.number().int(),
      }),
    ),
  })
  .meta({ id: "AnnouncementStats" });
