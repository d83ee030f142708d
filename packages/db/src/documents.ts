import { z } from "zod";

/**
 * One zod schema per document kind. The API validates writes with them and integrity scans
 * validate stored documents with the same schemas.
 */
export const isoDate = z.iso.datetime({ offset: true });

export const notificationPreferencesSchema = z.object({
  email: z.boolean(),
  push: z.boolean(),
  systemEvents: z.boolean(),
  observationEvents: z.boolean(),
});
export type NotificationPreferences = z.infer<typeof notificationPreferencesSchema>;

export const userDocSchema = z.object({
  email: z.string(),
  name: z.string(),
  passwordHash: z.string(),
  roles: z.array(z.enum(["serverAdmin", "organizationAdmin"])),
  notificationPreferences: notificationPreferencesSchema,
  avatar: z
    .object({ key: z.string(), contentType: z.string(), sizeBytes: z.number().int(), updatedAt: isoDate })
    .nullable(),
});
export type UserDoc = z.infer<typeof userDocSchema>;

export const sessionDocSchema = z.object({
  userId: z.string(),
  tokenHash: z.string(),
  expiresAt: isoDate,
  userAgent: z.string().nullable(),
  ip: z.string().nullable(),
});
export type SessionDoc = z.infer<typeof sessionDocSchema>;

export const apiKeyDocSchema = z.object({
  userId: z.string(),
  name: z.string(),
  keyHash: z.string(),
  /** First characters of the key, kept so a user can tell keys apart without the secret. */
  prefix: z.string(),
  lastUsedAt: isoDate.nullable(),
  revokedAt: isoDate.nullable(),
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
