-- pg_trgm is a trusted extension: the database's owner may create it (PostgreSQL 13 and later).
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
-- What `?q` searches: the name, then each target's name, one a line (no name holds a line break).
CREATE FUNCTION observation_search_text(doc jsonb) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
  SELECT concat_ws(E'\n', doc->>'name', (SELECT string_agg(target->>'name', E'\n') FROM jsonb_array_elements(doc->'targets') AS target))
$$;--> statement-breakpoint
ALTER TABLE "observations" ADD COLUMN "search_text" text GENERATED ALWAYS AS (observation_search_text(doc)) STORED;--> statement-breakpoint
CREATE INDEX "observations_created_idx" ON "observations" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "observations_priority_idx" ON "observations" USING btree ("priority","id");--> statement-breakpoint
CREATE INDEX "observations_status_changed_idx" ON "observations" USING btree ("status_changed_at","id");--> statement-breakpoint
CREATE INDEX "observations_search_idx" ON "observations" USING gin ("search_text" gin_trgm_ops);