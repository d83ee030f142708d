-- Every observatory an observation may run at: the document's candidateObservatoryIds when it has them, else its one
-- observatoryId (every document written before candidates existed), so each row gets its list without rewriting documents.
CREATE FUNCTION observation_candidate_observatory_ids(doc jsonb) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
  SELECT CASE WHEN jsonb_typeof(doc->'candidateObservatoryIds') = 'array'
    THEN ARRAY(SELECT jsonb_array_elements_text(doc->'candidateObservatoryIds'))
    ELSE ARRAY[doc->>'observatoryId'] END
$$;--> statement-breakpoint
-- Null while an observation with candidates waits (pending or paused): it names the observatory it was assigned to.
ALTER TABLE "observations" ALTER COLUMN "observatory_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "observations" ADD COLUMN "candidate_observatory_ids" text[] GENERATED ALWAYS AS (observation_candidate_observatory_ids(doc)) STORED NOT NULL;--> statement-breakpoint
CREATE INDEX "observations_candidates_idx" ON "observations" USING gin ("candidate_observatory_ids");--> statement-breakpoint
-- Dispatch reads what waits at an observatory as its own pending ones (observations_dispatch_idx) and those waiting with it
-- among their candidates at none, which this indexes alone.
CREATE INDEX "observations_waiting_candidates_idx" ON "observations" USING gin ("candidate_observatory_ids") WHERE observatory_id is null and status = 'pending';