CREATE TABLE "invitations" (
	"id" text PRIMARY KEY NOT NULL,
	"doc" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"scope_kind" text NOT NULL,
	"scope_id" text NOT NULL,
	"email_lower" text NOT NULL,
	"token_hash" text NOT NULL,
	"status" text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "invitations_token_hash_key" ON "invitations" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "invitations_pending_key" ON "invitations" USING btree ("scope_kind","scope_id","email_lower") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "invitations_scope_idx" ON "invitations" USING btree ("scope_kind","scope_id","created_at");