import { useSyncExternalStore } from "react";
import { timeDisplayChoices, type TimeDisplay } from "@meridian/rules";

/**
 * The zone every page shows times in, as the profile's `timeDisplay` says: `observatory` (an
 * observatory's times in its zone, with the zone's abbreviation; the rest in the browser's zone),
 * `browser` or `utc`. The choice lives here, outside React, so the plain formatters of `format.ts`
 * follow it too; the profile sets it (`TimeDisplaySync`), and this browser remembers the last one so
 * the first paint already uses it. `<Time>` re-renders at once when it changes; text made by the
 * plain formatters follows at its component's next render (a page change, new data).
 */
const STORAGE_KEY = "meridian.timeDisplay";
const isChoice = (value: unknown): value is TimeDisplay => timeDisplayChoices.includes(value as TimeDisplay);

function remembered(): TimeDisplay {
  try {
    const value = globalThis.localStorage?.getItem(STORAGE_KEY);
    return isChoice(value) ? value : "observatory";
  } catch {
    return "observatory";
  }
}

let current: TimeDisplay = remembered();
const listeners = new Set<() => void>();

export const timeDisplay = (): TimeDisplay => current;

export function setTimeDisplay(next: TimeDisplay): void {
  if (next === current) return;
  current = next;
  try {
    globalThis.localStorage?.setItem(STORAGE_KEY, next);
  } catch {
    // Private windows may refuse storage: the choice still holds for this visit.
  }
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The current choice, re-rendering the caller when it changes. */
export const useTimeDisplay = (): TimeDisplay => useSyncExternalStore(subscribe, timeDisplay, timeDisplay);

/**
 * The zone to show a time in: an observatory's time (`observatoryZone` given) in that zone unless the
 * user chose otherwise; `undefined` is the browser's own zone.
 */
export function displayZone(observatoryZone: string | undefined, choice: TimeDisplay = current): string | undefined {
  if (choice === "utc") return "UTC";
  if (choice === "observatory") return observatoryZone;
  return undefined;
}

/**
 * The one clock every time of day is shown on, dates, tables, sentences and chart axes alike: the
 * 24-hour clock with two-digit hours ("21:05", "09:05"), whatever the reader's locale (which still
 * orders and names the date). A 12-hour clock would split an observing night at midnight into "PM"
 * and "AM" halves and read "12:30 AM" beside "11:30 PM"; observatory logs, plugins and observers
 * count the night on the 24-hour clock, and the night's timeline and altitude axes need short labels.
 */
export const CLOCK = { hour: "2-digit", minute: "2-digit", hourCycle: "h23" } as const satisfies Intl.DateTimeFormatOptions;

/** Locales whose short zone names CLDR has for many zones (WET, CET, AEST, NZST, IST, SAST...), tried when the reader's own has only GMT±n. */
const namingLocales = [undefined, "en-US", "en-GB", "en-AU", "en-NZ", "en-IN", "en-ZA", "en-CA", "en-IE"] as const;
const abbreviations = new Map<string, string>();

/** The zone's short name at `date` ("WET", "AEDT", "UTC"), else its offset ("GMT-3"). */
export function zoneAbbreviation(zone: string, date: Date): string {
  const key = `${zone}|${date.getUTCFullYear()}-${date.getUTCMonth()}-${date.getUTCDate()}`;
  const known = abbreviations.get(key);
  if (known) return known;
  let found: string | undefined;
  let offset = "";
  for (const locale of namingLocales) {
    const name = new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName: "short" })
      .formatToParts(date)
      .find((part) => part.type === "timeZoneName")?.value;
    if (!name) continue;
    if (/^[A-Z]{2,5}$/.test(name)) {
      found = name;
      break;
    }
    offset ||= name;
  }
  const result = found ?? (offset || zone);
  abbreviations.set(key, result);
  return result;
}

/** The same moment in UTC, as a tooltip says it: "2026-11-23 22:15 UTC". */
export const utcText = (date: Date) => `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
