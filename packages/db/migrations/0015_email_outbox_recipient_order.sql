-- Edited after drizzle-kit generate: rows written before this migration get their recipient and a
-- sequence number in the order they were written (created_at, then id) before the columns become
-- NOT NULL and the sequence takes over.
ALTER TABLE "email_outbox" ADD COLUMN "recipient" text;--> statement-breakpoint
UPDATE "email_outbox" SET "recipient" = lower(btrim(doc->>'to'));--> statement-breakpoint
ALTER TABLE "email_outbox" ALTER COLUMN "recipient" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "email_outbox" ADD COLUMN "seq" bigint;--> statement-breakpoint
UPDATE "email_outbox" o SET "seq" = n.rn FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS rn FROM "email_outbox") n WHERE n.id = o.id;--> statement-breakpoint
ALTER TABLE "email_outbox" ALTER COLUMN "seq" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "email_outbox" ALTER COLUMN "seq" ADD GENERATED ALWAYS AS IDENTITY (sequence name "email_outbox_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1);--> statement-breakpoint
SELECT setval('email_outbox_seq_seq', coalesce((SELECT max("seq") FROM "email_outbox"), 0) + 1, false);--> statement-breakpoint
CREATE INDEX "email_outbox_recipient_pending_idx" ON "email_outbox" USING btree ("recipient","seq") WHERE status = 'pending';
