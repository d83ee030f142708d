CREATE TABLE "files" (
	"id" text PRIMARY KEY NOT NULL,
	"doc" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"observation_id" text NOT NULL,
	"object_key" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "observation_history" (
	"id" text PRIMARY KEY NOT NULL,
	"doc" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"observation_id" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "observations" (
	"id" text PRIMARY KEY NOT NULL,
	"doc" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"project_id" text NOT NULL,
	"observatory_id" text NOT NULL,
	"owner_id" text NOT NULL,
	"status" text NOT NULL,
	"priority" integer NOT NULL,
	"status_changed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "observatory_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"doc" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"observatory_id" text NOT NULL,
	"key_hash" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "push_subscriptions" (
	"id" text PRIMARY KEY NOT NULL,
	"doc" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"user_id" text NOT NULL,
	"endpoint" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "files_observation_idx" ON "files" USING btree ("observation_id","created_at");--> statement-breakpoint
CREATE INDEX "files_object_key_idx" ON "files" USING btree ("object_key");--> statement-breakpoint
CREATE INDEX "observation_history_observation_idx" ON "observation_history" USING btree ("observation_id","created_at");--> statement-breakpoint
CREATE INDEX "observations_dispatch_idx" ON "observations" USING btree ("observatory_id","status","priority" DESC NULLS LAST,"created_at","id");--> statement-breakpoint
CREATE INDEX "observations_project_idx" ON "observations" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "observations_owner_idx" ON "observations" USING btree ("owner_id","created_at");--> statement-breakpoint
CREATE INDEX "observations_status_idx" ON "observations" USING btree ("status","status_changed_at");--> statement-breakpoint
CREATE UNIQUE INDEX "observatory_keys_key_hash_key" ON "observatory_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "observatory_keys_observatory_idx" ON "observatory_keys" USING btree ("observatory_id");--> statement-breakpoint
CREATE UNIQUE INDEX "push_subscriptions_endpoint_key" ON "push_subscriptions" USING btree ("endpoint");--> statement-breakpoint
CREATE INDEX "push_subscriptions_user_idx" ON "push_subscriptions" USING btree ("user_id");