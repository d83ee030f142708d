import { z } from "zod";

/**
 * Whether a moment falls in years 1 to 9999, in UTC: ISO 8601's year 0000 (1 BC) parses in
 * JavaScript and is written back as `0000-…`, and a moment past 9999 (`9999-12-31T23:00:00-05:00`
 * is one) as `+010000-…`; PostgreSQL's timestamptz refuses both.
 */
const inYearsOneTo9999 = (value: string) => {
  const year = new Date(value).getUTCFullYear();
  return year >= 1 && year <= 9999;
};
const YEARS_ONE_TO_9999 = "must be in year 1 to 9999 (UTC)";

/**
 * A moment as the API writes it and stored documents hold it: ISO 8601 with a zone
 * (`2026-11-21T10:00:00.000Z`). Without a refinement, so the integrity scan's fast check can be
 * derived from the documents' schemas (`fastAcceptOf`).
 */
export const isoDate = z.iso.datetime({ offset: true });
/** A moment a client gives, to be compared or stored by PostgreSQL: as `isoDate`, in years 1 to 9999. */
export const isoDateInput = isoDate.refine(inYearsOneTo9999, YEARS_ONE_TO_9999);
/** A calendar day a client gives (`2026-11-21`, its start in UTC), in years 1 to 9999. */
export const isoDay = z.iso.date().refine(inYearsOneTo9999, YEARS_ONE_TO_9999);

/**
 * No control characters (NUL cannot be stored in PostgreSQL text) and no lone surrogates
 * (PostgreSQL refuses them in jsonb). Letters of every script, emoji and format marks are fine.
 */
export const noControlCharacters = /^[^\p{Cc}\p{Cs}]*$/u;

/**
 * Refuses control characters and lone surrogates. A refinement, not `.regex()`: the OpenAPI
 * generator would publish the pattern with its `/u` flag glued on, a pattern nothing matches.
 */
export const withoutControlCharacters = <T extends z.ZodString>(schema: T) =>
  schema.refine((value) => noControlCharacters.test(value), "must not contain control characters");
