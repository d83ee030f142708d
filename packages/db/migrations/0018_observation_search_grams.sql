-- What a `?q` of one or two characters looks up: every distinct one- and two-character piece of the
-- lower-cased search text (pg_trgm needs three characters, so the trigram index cannot serve them).
CREATE FUNCTION observation_search_grams(search text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
  SELECT coalesce(array_agg(DISTINCT substr(lower(search), start, size)), '{}')
  FROM generate_series(1, length(search)) AS start, (VALUES (1), (2)) AS sizes(size)
  WHERE start + size - 1 <= length(search)
$$;--> statement-breakpoint
ALTER TABLE "observations" ADD COLUMN "search_grams" text[] GENERATED ALWAYS AS (observation_search_grams(observation_search_text(doc))) STORED;--> statement-breakpoint
CREATE INDEX "observations_search_grams_idx" ON "observations" USING gin ("search_grams");
