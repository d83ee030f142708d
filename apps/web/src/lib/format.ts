import { CLOCK, displayZone, timeDisplay, zoneName } from "./time-display";

type Style = "dateTime" | "sameYear" | "sameYearDate" | "otherYearDate" | "otherYear" | "clock";
/** The date as the reader's locale writes it; the time of day always on the 24-hour `CLOCK` (see there why). */
const styles: Record<Style, Intl.DateTimeFormatOptions> = {
  dateTime: { year: "numeric", month: "short", day: "numeric", ...CLOCK },
  sameYear: { month: "short", day: "numeric", ...CLOCK },
  sameYearDate: { month: "short", day: "numeric" },
  otherYearDate: { year: "numeric", month: "short", day: "numeric" },
  otherYear: { year: "numeric", month: "short", day: "numeric", ...CLOCK },
  clock: CLOCK,
};
const formatters = new Map<string, Intl.DateTimeFormat>();

/** One formatter per style and zone (`undefined`: the browser's), made once. */
function formatter(style: Style, zone: string | undefined): Intl.DateTimeFormat {
  const key = `${style}|${zone ?? ""}`;
  let made = formatters.get(key);
  if (!made) {
    made = new Intl.DateTimeFormat(undefined, { ...styles[style], ...(zone ? { timeZone: zone } : {}) });
    formatters.set(key, made);
  }
  return made;
}

const parse = (iso: string | null | undefined) => {
  if (!iso) return null;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null : date;
};

/** The year of `date` in `zone`, to tell this year's dates from others'. */
const yearIn = (date: Date, zone: string | undefined) =>
  Number(
    formatter("otherYearDate", zone)
      .formatToParts(date)
      .find((part) => part.type === "year")?.value,
  );

/**
 * An account-wide time (a session, a job, a backup) in the user's zone, as the profile's time display chooses
 * (`lib/time-display.ts`): the browser's or UTC, named after it. Times of an observation, a queue or a night are the
 * observatory's: they go through `formatObservatoryTime` or `<Time>`.
 */
export function formatDateTime(iso: string | null | undefined, fallback = "—"): string {
  const date = parse(iso);
  if (!date) return fallback;
  const zone = displayZone(undefined);
  return withZoneName(formatter("dateTime", zone).format(date), zone, date);
}

/** Every time shown names its zone (`zoneName`), the browser's too (`zone` undefined). */
const withZoneName = (text: string, zone: string | undefined, date: Date) => `${text} ${zoneName(zone, date)}`;

/** In the year shown by `sameYearStyle` when it is this one, else by `otherYearStyle`. */
function formatShort(iso: string | null | undefined, fallback: string, sameYearStyle: Style, otherYearStyle: Style, zone = displayZone(undefined)): string {
  const date = parse(iso);
  if (!date) return fallback;
  return formatter(yearIn(date, zone) === yearIn(new Date(), zone) ? sameYearStyle : otherYearStyle, zone).format(date);
}

/** For narrow table cells: the year only when it is not this one. */
export const formatShortDateTime = (iso: string | null | undefined, fallback = "—") => {
  const date = parse(iso);
  const zone = displayZone(undefined);
  return date ? withZoneName(formatShort(iso, fallback, "sameYear", "otherYear", zone), zone, date) : fallback;
};

/** The time of day without a date ("21:05 UTC+1"), in the zone of `formatDateTime`, for a moment in the next hours. */
export const formatClock = (iso: string | null | undefined, fallback = "—") => {
  const date = parse(iso);
  const zone = displayZone(undefined);
  return date ? withZoneName(formatter("clock", zone).format(date), zone, date) : fallback;
};

/** A day without its time, for narrow cells: the year only when it is not this one. */
export const formatShortDate = (iso: string | null | undefined, fallback = "—") => formatShort(iso, fallback, "sameYearDate", "otherYearDate");

/**
 * A time of an observatory (its window, queue, runs): in the observatory's zone with the zone's
 * name (`zoneName`), unless the profile chose the browser's zone or UTC. `short` leaves out the year
 * when it is this one, for narrow cells. Without a zone (not loaded yet) it reads as any other time.
 */
export function formatObservatoryTime(
  iso: string | null | undefined,
  observatoryZone: string | undefined,
  options: { short?: boolean; fallback?: string; choice?: ReturnType<typeof timeDisplay> } = {},
): string {
  const { short = false, fallback = "—", choice = timeDisplay() } = options;
  const date = parse(iso);
  if (!date) return fallback;
  const zone = displayZone(observatoryZone, choice);
  const text = short ? formatShort(iso, fallback, "sameYear", "otherYear", zone) : formatter("dateTime", zone).format(date);
  return withZoneName(text, zone, date);
}
