CREATE TABLE "announcement_recipients" (
	"id" text PRIMARY KEY NOT NULL,
	"doc" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"announcement_id" text NOT NULL,
	"user_id" text NOT NULL,
	"acknowledged_at" timestamp with time zone,
	"seen_at" timestamp with time zone,
	"email_state" text,
	"emailed_at" timestamp with time zone,
	"email_claimed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "announcements" (
	"id" text PRIMARY KEY NOT NULL,
	"doc" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"scope" text NOT NULL,
	"scope_id" text,
	"status" text NOT NULL,
	"created_by" text NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone,
	"recipient_count" integer NOT NULL,
	"acknowledged_count" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "realtime_events" ADD COLUMN "announcement_id" text;--> statement-breakpoint
CREATE INDEX "announcement_recipients_announcement_idx" ON "announcement_recipients" USING btree ("announcement_id","acknowledged_at");--> statement-breakpoint
CREATE INDEX "announcement_recipients_unacknowledged_idx" ON "announcement_recipients" USING btree ("user_id","announcement_id") WHERE acknowledged_at is null;--> statement-breakpoint
CREATE INDEX "announcement_recipients_email_due_idx" ON "announcement_recipients" USING btree ("announcement_id") WHERE email_state in ('pending', 'sending');--> statement-breakpoint
CREATE INDEX "announcements_scope_idx" ON "announcements" USING btree ("scope","scope_id","created_at");--> statement-breakpoint
CREATE INDEX "announcements_status_idx" ON "announcements" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "announcements_due_expiry_idx" ON "announcements" USING btree ("expires_at") WHERE status = 'active' and expires_at is not null;--> statement-breakpoint
CREATE INDEX "users_server_admin_idx" ON "users" USING btree ("id") WHERE doc->'roles' ? 'serverAdmin';