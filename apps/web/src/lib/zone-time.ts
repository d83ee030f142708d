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
