CREATE TABLE "observatory_connections" (
	"observatory_id" text PRIMARY KEY NOT NULL,
	"connection_id" text NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL
);
