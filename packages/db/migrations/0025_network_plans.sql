-- The network plan in force: one row (`current`), replaced whole by the planning job in one transaction.
CREATE TABLE "network_plans" (
	"id" text PRIMARY KEY NOT NULL,
	"computed_at" timestamp with time zone NOT NULL,
	"revision" bigint NOT NULL,
	"doc" jsonb NOT NULL
);
