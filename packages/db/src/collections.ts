import { apiKeyDocSchema, emailOutboxDocSchema, sessionDocSchema, settingDocSchema, userDocSchema } from "./documents";
import { defineCollection } from "./repository";
import { apiKeys, emailOutbox, sessions, settings, users } from "./schema";

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

export const apiKeysCollection = defineCollection({
  table: apiKeys,
  schema: apiKeyDocSchema,
  idPrefix: "key",
  keys: (doc) => ({ userId: doc.userId, keyHash: doc.keyHash }),
});

export const emailOutboxCollection = defineCollection({
  table: emailOutbox,
  schema: emailOutboxDocSchema,
  idPrefix: "eml",
  keys: (doc) => ({ status: doc.status }),
});

export const settingsCollection = defineCollection({
  table: settings,
  schema: settingDocSchema,
  idPrefix: "set",
  keys: () => ({}),
});

/** Every collection by its table name, for integrity scans and backups. */
export const collections = {
  users: usersCollection,
  sessions: sessionsCollection,
  api_keys: apiKeysCollection,
  email_outbox: emailOutboxCollection,
  settings: settingsCollection,
} as const;
