CREATE TABLE "integrity_issues" (
	"id" text PRIMARY KEY NOT NULL,
	"doc" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"scan_id" text NOT NULL,
	"severity" text NOT NULL,
	"type" text NOT NULL,
	"collection" text NOT NULL,
	"auto_fixable" boolean NOT NULL
);
--> statement-breakpoint
CREATE TABLE "integrity_scans" (
	"id" text PRIMARY KEY NOT NULL,
	"doc" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "integrity_issues_scan_idx" ON "integrity_issues" USING btree ("scan_id","severity","id");--> statement-breakpoint
CREATE INDEX "integrity_scans_created_at_idx" ON "integrity_scans" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "integrity_scans_one_running_per_kind" ON "integrity_scans" USING btree ("kind") WHERE status in ('queued', 'running');