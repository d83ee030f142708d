-- DATE-OBS as a moment: FITS writes it in UTC, without a zone (`2026-11-29T01:02:03.5`). Anything else a header may carry
-- (an old dd/mm/yy date, a 30th of February) is null rather than an error, so that no write of a file's document fails on it.
CREATE FUNCTION frame_date_obs(date_obs text) RETURNS timestamptz LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT AS $$
BEGIN
  IF date_obs !~ '^\d{4}-\d\d-\d\d([T ]\d\d:\d\d(:\d\d(\.\d{1,9})?)?)?Z?$' THEN
    RETURN NULL;
  END IF;
  RETURN rtrim(date_obs, 'Z')::timestamp AT TIME ZONE 'UTC';
EXCEPTION WHEN others THEN
  RETURN NULL;
END
$$;--> statement-breakpoint
-- One rewrite of the table fills every column for the frames already stored.
ALTER TABLE "files"
  ADD COLUMN "frame_status" text GENERATED ALWAYS AS (doc #>> '{frame,status}') STORED,
  ADD COLUMN "frame_grade" text GENERATED ALWAYS AS (doc #>> '{frame,grade}') STORED,
  ADD COLUMN "frame_filter" text GENERATED ALWAYS AS (lower(doc #>> '{frame,header,filter}')) STORED,
  ADD COLUMN "frame_date_obs" timestamp with time zone GENERATED ALWAYS AS (frame_date_obs(doc #>> '{frame,header,dateObs}')) STORED,
  ADD COLUMN "frame_ra" double precision GENERATED ALWAYS AS ((doc #>> '{frame,solution,ra}')::double precision) STORED,
  ADD COLUMN "frame_dec" double precision GENERATED ALWAYS AS ((doc #>> '{frame,solution,dec}')::double precision) STORED;--> statement-breakpoint
-- Both carry what a search's page is chosen by (INCLUDE, which drizzle's schema cannot say), so the page is found by an
-- index-only scan and only its own rows are read from the table.
CREATE INDEX "files_frames_created_idx" ON "files" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST) INCLUDE ("observation_id")
  WHERE frame_status is not null;--> statement-breakpoint
CREATE INDEX "files_frame_centre_idx" ON "files" USING gist (point("frame_ra", "frame_dec"))
  INCLUDE ("id", "observation_id", "frame_ra", "frame_dec", "frame_status") WHERE frame_ra is not null;--> statement-breakpoint
CREATE INDEX "files_frame_date_obs_idx" ON "files" USING btree ("frame_date_obs","id") WHERE frame_date_obs is not null;
