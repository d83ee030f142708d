import { useSyncExternalStore } from "react";
import { timeDisplayChoices, type TimeDisplay } from "@meridian/rules";

/**
 * The zone every page shows times in, as the profile's `timeDisplay` says: `observatory` (an
 * observatory's times in its zone, named by its offset from UTC; the rest in the browser's zone),
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

const offsetNamer = new Map<string, Intl.DateTimeFormat>();
/** The zone the browser shows times in when none is given. */
export const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/**
 * The one way every time on every page names its zone: its offset from UTC at that moment, "UTC+11", "UTC-3", "UTC+5:30",
 * and "UTC" alone at offset zero. Chosen over abbreviations ("AEDT", "WET"): CLDR has those only for some zones and only in
 * some locales, so a page read "21:27 AEDT" beside "21:27 GMT+11" and "04:29 GMT-3" (São Paulo has none); several are
 * ambiguous (IST, CST, BST); and an offset says at once how far the time is from the UTC one each tooltip gives. Written
 * with "UTC", not "GMT", as the profile's UTC choice and the tooltips are. `zone` undefined is the browser's zone.
 */
export function zoneName(zone: string | undefined, date: Date): string {
  const shown = zone ?? browserZone();
  let namer = offsetNamer.get(shown);
  if (!namer) {
    // en-US: the offset in Latin digits and the same words in every reader's locale.
    namer = new Intl.DateTimeFormat("en-US", { timeZone: shown, timeZoneName: "shortOffset" });
    offsetNamer.set(shown, namer);
  }
  const offset = namer.formatToParts(date).find((part) => part.type === "timeZoneName")?.value ?? "GMT";
  return offset.replace(/^GMT(?:[+-]0(?::00)?)?$/, "UTC").replace(/^GMT/, "UTC");
}

/** The same moment in UTC, as a tooltip says it: "2026-11-23 22:15 UTC". */
export const utcText = (date: Date) => `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
