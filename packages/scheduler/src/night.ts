import { Body, Illumination, Observer, SearchAltitude, SearchRiseSet } from "astronomy-engine";
import type { Location } from "./sky";

/** One night at an observatory: sunset to sunrise, and the astronomical darkness between. */
export interface Night {
  /** The observatory-local date on which the night begins (YYYY-MM-DD). */
  date: string;
  sunset: Date;
  /** Null where the sun does not reach −18° that night (summer at high latitude). */
  darkStart: Date | null;
  darkEnd: Date | null;
  sunrise: Date;
}

export interface MoonOverNight {
  /** The lit fraction of the Moon's disc (0 new, 1 full) at the middle of the night. */
  illumination: number;
  /** When it rises and sets between sunset and sunrise; null when it does not that night. */
  rise: Date | null;
  set: Date | null;
}

const DAY_MS = 86_400_000;
const ASTRONOMICAL = -18;

const observerAt = (location: Location) => new Observer(location.latitude, location.longitude, location.elevation);

function zoneParts(at: number, timeZone: string) {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(new Date(at));
  const part = (type: string) => Number(parts.find((candidate) => candidate.type === type)!.value);
  return { year: part("year"), month: part("month"), day: part("day"), hour: part("hour"), minute: part("minute"), second: part("second") };
}

/** The zone's offset from UTC at that moment, in milliseconds. */
function zoneOffsetMs(at: number, timeZone: string): number {
  const local = zoneParts(at, timeZone);
  return Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second) - Math.floor(at / 1000) * 1000;
}

/** The date (YYYY-MM-DD) that the zone's clocks show at that moment. */
export function localDate(options: { at: Date; timeZone: string }): string {
  const { year, month, day } = zoneParts(options.at.getTime(), options.timeZone);
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

/** Noon by the zone's clocks on that date: where the search for the night's sunset starts. */
export function localNoon(options: { date: string; timeZone: string }): Date {
  const [year, month, day] = options.date.split("-").map(Number) as [number, number, number];
  const guess = Date.UTC(year, month - 1, day, 12);
  const first = guess - zoneOffsetMs(guess, options.timeZone);
  return new Date(guess - zoneOffsetMs(first, options.timeZone));
}

export const shiftDate = ({ date, days }: { date: string; days: number }) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** The night that begins on the observatory-local `date`, or null where the sun does not set that day. */
export function nightOf(options: { location: Location; timeZone: string; date: string }): Night | null {
  const { location, date } = options;
  const observer = observerAt(location);
  const noon = localNoon({ date, timeZone: options.timeZone });
  const sunset = SearchRiseSet(Body.Sun, observer, -1, noon, 1)?.date;
  if (!sunset) return null;
  const sunrise = SearchRiseSet(Body.Sun, observer, +1, sunset, 1)?.date ?? new Date(noon.getTime() + DAY_MS);
  const dusk = SearchAltitude(Body.Sun, observer, -1, sunset, 1, ASTRONOMICAL)?.date;
  const darkStart = dusk && dusk < sunrise ? dusk : null;
  const dawn = darkStart ? SearchAltitude(Body.Sun, observer, +1, darkStart, 1, ASTRONOMICAL)?.date : undefined;
  return { date, sunset, darkStart, darkEnd: darkStart ? (dawn && dawn < sunrise ? dawn : sunrise) : null, sunrise };
}

/**
 * The night in progress at that moment, or else the next one: the night of yesterday's date while
 * it has not ended (after midnight), else tonight's.
 */
export function currentNight(options: { location: Location; timeZone: string; at: Date }): Night | null {
  const today = localDate(options);
  const last = nightOf({ ...options, date: shiftDate({ date: today, days: -1 }) });
  if (last && options.at < last.sunrise) return last;
  return nightOf({ ...options, date: today });
}

export function moonOverNight(options: { location: Location; night: Night }): MoonOverNight {
  const { night } = options;
  const observer = observerAt(options.location);
  const spanDays = (night.sunrise.getTime() - night.sunset.getTime()) / DAY_MS;
  const middle = new Date((night.sunset.getTime() + night.sunrise.getTime()) / 2);
  return {
    illumination: Illumination(Body.Moon, middle).phase_fraction,
    rise: SearchRiseSet(Body.Moon, observer, +1, night.sunset, spanDays)?.date ?? null,
    set: SearchRiseSet(Body.Moon, observer, -1, night.sunset, spanDays)?.date ?? null,
  };
}
