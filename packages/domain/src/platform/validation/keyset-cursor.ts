import { sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { AppError, fieldError } from "../errors";
import { opaqueIdSchema } from "./opaque-id";

/** The `cursor` query parameter as the OpenAPI document describes it, for every list whose cursor is made here. */
export const cursorParameterDescription = "Opaque: the nextCursor of the page before. Any other value is 400 VALIDATION_FAILED on `cursor`.";

/**
 * What one place of a cursor holds: a moment (as `instantKey` reads it), an integer, a double, a row id, or
 * one of a few words. Each is checked on the way back in, so that a cursor never reaches SQL as
 * something the list did not give.
 */
type Part = "instant" | "integer" | "number" | "id" | readonly string[];
type Values<Parts extends readonly Part[]> = { -readonly [K in keyof Parts]: string };

// Microseconds kept: a cursor rounded to milliseconds would skip or repeat rows stamped within one.
const instantPattern = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
// What a PostgreSQL integer holds (a key selected as `::text`).
const integerPattern = /^-?\d{1,9}$/;
// A double as PostgreSQL writes it (`::text`, every digit it needs to read back the same value).
const numberPattern = /^-?\d{1,20}(\.\d{1,20})?(e[-+]?\d{1,3})?$/;

/** A timestamp column as a cursor holds it, UTC to the microsecond; select it beside the row. */
export const instantKey = (column: AnyPgColumn | SQL) => sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** A real moment: `Date` would roll February 30th over to March, and PostgreSQL would refuse it. */
const isInstant = (text: string) => {
  if (!instantPattern.test(text)) return false;
  const milliseconds = `${text.slice(0, 23)}Z`;
  const date = new Date(milliseconds);
  return !Number.isNaN(date.getTime()) && date.toISOString() === milliseconds;
};

const fits = (part: Part, value: unknown): value is string =>
  typeof value === "string" &&
  (part === "instant"
    ? isInstant(value)
    : part === "integer"
      ? integerPattern.test(value)
      : part === "number"
        ? numberPattern.test(value)
        : part === "id"
          ? opaqueIdSchema.safeParse(value).success
          : part.includes(value));

/**
 * A list's cursor that holds the last row's sort keys and id themselves (base64url of JSON, the
 * list's name first), rather than the id of a row to look up: a row deleted between two page
 * reads (audit retention, a removed job) leaves the walk going on from where it was, and a cursor
 * no list gave, or another list's, is a 400 on `cursor` instead of a silently empty or wrong page.
 */
export function keysetCursor<const Parts extends readonly Part[]>(options: { list: string; parts: Parts }) {
  const { list, parts } = options;
  return {
    encode: (...values: Values<Parts>): string => Buffer.from(JSON.stringify([list, ...values])).toString("base64url"),
    decode(cursor: string): Values<Parts> {
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.from(cursor, "base64url").toString());
      } catch {
        parsed = null;
      }
      const [name, ...values] = Array.isArray(parsed) ? (parsed as unknown[]) : [];
      if (name !== list || values.length !== parts.length || !parts.every((part, at) => fits(part, values[at])))
        throw new AppError("VALIDATION_FAILED", "The cursor is not one this list gave", {
          errors: [fieldError({ path: "cursor", predicate: "is not one this list gave (use the nextCursor of the page before)" })],
        });
      return values as Values<Parts>;
    },
  };
}
