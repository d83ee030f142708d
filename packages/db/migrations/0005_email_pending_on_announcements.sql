DROP INDEX "announcement_recipients_email_due_idx";--> statement-breakpoint
ALTER TABLE "announcements" ADD COLUMN "email_pending" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "announcements_email_pending_idx" ON "announcements" USING btree ("starts_at") WHERE email_pending;--> statement-breakpoint
-- Announcements created before this column keep being delivered.
UPDATE "announcements" a SET "email_pending" = true, "doc" = a."doc" || '{"emailPending":true}'::jsonb WHERE EXISTS (SELECT 1 FROM "announcement_recipients" r WHERE r."announcement_id" = a."id" AND r."email_state" IN ('pending', 'sending'));
