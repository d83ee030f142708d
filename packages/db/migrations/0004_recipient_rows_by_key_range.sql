-- Rows of one announcement are read as a range of the primary key (recipient-rows.ts): byte order,
-- whatever the database's default collation.
ALTER TABLE "announcement_recipients" ALTER COLUMN "id" SET DATA TYPE text COLLATE "C";--> statement-breakpoint
DROP INDEX "announcement_recipients_announcement_idx";