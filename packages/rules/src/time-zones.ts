/**
 * Time zone names as the API takes them: IANA names that this runtime's Intl knows, written the
 * way Intl writes them (`europe/madrid` → `Europe/Madrid`, `GMT` → `UTC`). Offsets such as
 * `+01:00` are not names and are refused. The SPA checks the settings form with the same rule.
 */
export const TIME_ZONE_PREDICATE = "must be an IANA time zone name such as Atlantic/Canary or UTC";

const namePattern = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/** The name as Intl writes it, or null when it is not a time zone Intl knows. */
export function canonicalTimeZone(name: string): string | null {
  if (!namePattern.test(name)) return null;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

export const isTimeZone = (name: string): boolean => canonicalTimeZone(name) !== null;

/**
 * A user's choice (profile `timeDisplay`) of the zone the interface shows times in: observatory
 * times in the observatory's zone and the rest in the browser's (the default), everything in the
 * browser's, or everything in UTC.
 */
export const timeDisplayChoices = ["observatory", "browser", "utc"] as const;
export type TimeDisplay = (typeof timeDisplayChoices)[number];
