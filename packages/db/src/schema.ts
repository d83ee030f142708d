import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import type { ApiKeyDoc, EmailOutboxDoc, SessionDoc, SettingDoc, UserDoc } from "./documents";

/** Columns every collection shares: the document and its timestamps. */
const documentColumns = <Doc>() => ({
  id: text("id").primaryKey(),
  doc: jsonb("doc").$type<Doc>().notNull(),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

export const users = pgTable(
  "users",
  { ...documentColumns<UserDoc>(), emailLower: text("email_lower").notNull() },
  (table) => [uniqueIndex("users_email_lower_key").on(table.emailLower)],
);

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

export const apiKeys = pgTable(
  "api_keys",
  {
    ...documentColumns<ApiKeyDoc>(),
    userId: text("user_id").notNull(),
    keyHash: text("key_hash").notNull(),
  },
  (table) => [uniqueIndex("api_keys_key_hash_key").on(table.keyHash), index("api_keys_user_id_idx").on(table.userId)],
);

export const emailOutbox = pgTable(
  "email_outbox",
  { ...documentColumns<EmailOutboxDoc>(), status: text("status").notNull() },
  (table) => [index("email_outbox_pending_idx").on(table.createdAt).where(sql`status = 'pending'`)],
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
    type: text("type").notNull(),
    data: jsonb("data").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (table) => [index("realtime_events_created_at_idx").on(table.createdAt)],
);

/** Not a collection: each worker process records that it is alive, for health checks. */
export const workerHeartbeats = pgTable("worker_heartbeats", {
  workerId: text("worker_id").primaryKey(),
  startedAt: timestamp("started_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  lastSeenAt: timestamp("last_seen_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});
