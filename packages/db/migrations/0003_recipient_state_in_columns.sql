DROP INDEX "announcement_recipients_unacknowledged_idx";--> statement-breakpoint
ALTER TABLE "announcement_recipients" ADD COLUMN "email_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "announcement_recipients" ADD COLUMN "email_last_error" text;