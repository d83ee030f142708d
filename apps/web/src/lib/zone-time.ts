import { browserZone, CLOCK, displayZone, timeDisplay, zoneName } from "./time-display";

/**
 * Moments of an observatory's night ("23:40 UTC", "Sat 28 Nov") and the dates of its nights. A
 * night's date is the observatory's; its clock times follow the profile's choice (`shownZone`): the
 * observatory's zone by default, else UTC or the browser's. Components that use these call
 * `useTimeDisplay()` so they render again when the choice changes.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string, options: Intl.DateTimeFormatOptions, locale?: string): Intl.DateTimeFormat {
  const key = `${zone}|${locale ?? ""}|${JSON.stringify(options)}`;
  let made = formatters.get(key);
  if (!made) {
    made = new Intl.DateTimeFormat(locale, { ...options, timeZone: zone });
    formatters.set(key, made);
  }
  return made;
}

const toDate = (at: string | Date) => (typeof at === "string" ? new Date(at) : at);

/** The zone an observatory's clock times are shown in: its own, unless the profile chose UTC or the browser's. */
const shownZone = (zone: string) => displayZone(zone, timeDisplay()) ?? browserZone();

/**
 * The zone an observation's times are typed in (its window, a cadence's end), and how its fields say it in words. The
 * zone its times are shown in, so a time reads the same in the field, the review and the observation's page: the
 * observatory's unless the profile chose UTC or the browser's; the browser's while the observatory's is not known, as
 * `<Time>` shows it then.
 */
export interface TypingZone {
  zone: string;
  /** "the observatory's time zone, Australia/Sydney", "UTC, as your profile shows times", "your time zone, America/Santiago". */
  words: string;
}

export function typingZone(observatoryZone: string | undefined, choice = timeDisplay()): TypingZone {
  const zone = displayZone(observatoryZone, choice) ?? browserZone();
  if (choice === "utc") return { zone, words: "UTC, as your profile shows times" };
  if (choice === "observatory" && observatoryZone) return { zone, words: `the observatory's time zone, ${zone}` };
  return { zone, words: `your time zone, ${zone}` };
}

/** How the zone of an observatory's times is named beside them: "observatory time, UTC+11", "UTC" or "your time, UTC-3". */
export function zoneLabel(zone: string, at: string | Date = new Date()): string {
  const choice = timeDisplay();
  if (choice === "utc") return "UTC";
  const label = zoneAbbreviation(zone, at);
  return choice === "browser" ? `your time, ${label}` : `observatory time, ${label}`;
}

/** Hours and minutes on the zone's 24-hour clock (`CLOCK`, as every time of day): "23:40". */
export const zoneClock = (at: string | Date, zone: string) => formatter(shownZone(zone), CLOCK).format(toDate(at));

/** The name of the zone an observatory's times are shown in, at that moment, as every time names its zone (`zoneName`): "UTC+1". */
export const zoneAbbreviation = (observatoryZone: string, at: string | Date = new Date()): string => zoneName(shownZone(observatoryZone), toDate(at));

/** "23:40 UTC": a time with its zone, for text read on its own. */
export const zoneClockWithZone = (at: string | Date, zone: string) => `${zoneClock(at, zone)} ${zoneAbbreviation(zone, at)}`;

/** The date (YYYY-MM-DD) the zone's calendars show at that moment. */
export function zoneDate(at: string | Date, zone: string): string {
  const parts = formatter(zone, { year: "numeric", month: "2-digit", day: "2-digit" }, "en-US").formatToParts(toDate(at));
  const part = (type: string) => parts.find((candidate) => candidate.type === type)?.value ?? "";
  return `${part("year")}-${part("month")}-${part("day")}`;
}

/** The date `days` after a YYYY-MM-DD date. */
export const shiftDate = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** A YYYY-MM-DD date as people read it: "Sat 28 Nov". */
export const dayName = (date: string) =>
  formatter("UTC", { weekday: "short", day: "numeric", month: "short" }, "en-GB")
    .format(new Date(`${date}T12:00:00Z`))
    .replace(",", "");

/**
 * "01:12" for a moment within `near` (the night on screen, the next hours), where the clock alone is
 * plain; "Sat 28 Nov 01:12" for any other.
 */
export function zoneMoment(at: string, zone: string, near: { from: number; to: number }): string {
  const ms = Date.parse(at);
  return ms >= near.from && ms <= near.to ? zoneClock(at, zone) : `${dayName(zoneDate(at, shownZone(zone)))} ${zoneClock(at, zone)}`;
}

/** The next twelve hours: a time in them needs no date. */
export const comingHours = (now = Date.now()) => ({ from: now, to: now + 12 * 3_600_000 });

const WALL_CLOCK = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/;
const DAY_MS = 86_400_000;
const pad = (value: number, width = 2) => String(value).padStart(width, "0");

/** Milliseconds since the epoch of a date and time read as UTC (any year: Date.UTC would read 0–99 as 1900–1999). */
function utcMs(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second);
  return date.getTime();
}

/** The zone's clock and calendar at that moment, as numbers. */
function wallParts(at: number, zone: string) {
  const parts = formatter(
    zone,
    { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" },
    "en-US",
  ).formatToParts(new Date(at));
  const part = (type: string) => Number(parts.find((candidate) => candidate.type === type)?.value);
  return { year: part("year"), month: part("month"), day: part("day"), hour: part("hour"), minute: part("minute"), second: part("second") };
}

/** How far the zone's clocks are ahead of UTC at that moment, in milliseconds. */
function offsetMs(at: number, zone: string): number {
  const { year, month, day, hour, minute, second } = wallParts(at, zone);
  return utcMs(year, month, day, hour, minute, second) - Math.floor(at / 1000) * 1000;
}

/**
 * A `datetime-local` value ("2031-01-02T21:00") read on the clocks of `zone`, as the API's ISO 8601 UTC; undefined when it
 * is no date and time. Across a change of the clocks it reads as Temporal's "compatible" choice does: a time the clocks
 * skip (02:30 when they go from 02:00 to 03:00) is read as that long after the change (03:30), and a time they show twice
 * (02:30 when they go back from 03:00 to 02:00) as the first of the two.
 */
export function wallClockToIso(value: string, zone: string): string | undefined {
  const match = WALL_CLOCK.exec(value.trim());
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => Number(part ?? 0)) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const wall = utcMs(year, month, day, hour, minute, second);
  // 31 February is no date: Date would roll it over into March.
  if (new Date(wall).getUTCDate() !== day) return undefined;
  // The offsets a day either side of it are the only ones it can have (no zone changes its clocks twice in two days);
  // a reading is right when the zone has that offset at that moment.
  const before = offsetMs(wall - DAY_MS, zone);
  const readings = [...new Set([before, offsetMs(wall + DAY_MS, zone)])].map((offset) => wall - offset).filter((at) => wall - at === offsetMs(at, zone));
  const at = readings.length > 0 ? Math.min(...readings) : wall - before;
  return new Date(at + Number((match[7] ?? "").padEnd(3, "0"))).toISOString();
}

/** An ISO time as a `datetime-local` value on the clocks of `zone`, to the minute as the fields take it ("2031-01-02T21:00"). */
export function wallClockOf(iso: string, zone: string): string {
  const { year, month, day, hour, minute } = wallParts(Date.parse(iso), zone);
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}`;
}
