import { z } from "zod";

/** A moment as the API writes and takes it: ISO 8601 with a zone (`2026-11-21T10:00:00.000Z`). */
export const isoDate = z.iso.datetime({ offset: true });

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
