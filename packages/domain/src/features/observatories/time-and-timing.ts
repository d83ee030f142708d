import tzlookup from "@photostructure/tz-lookup";
import type { ObservatoryDoc } from "@meridian/db";
import { canonicalTimeZone, defaultObservatoryTiming, type ObservatoryTiming } from "@meridian/rules";

type Location = { latitude: number; longitude: number };

/**
 * The zone a location lies in (tz-lookup's boundary data; the open sea reads as `Etc/GMT±n`), as
 * Intl names it; UTC without a location or when this runtime's Intl does not know the name.
 */
export function timeZoneAt(options: { location: Location | null }): string {
  const { location } = options;
  if (!location) return "UTC";
  return canonicalTimeZone(tzlookup(location.latitude, location.longitude)) ?? "UTC";
}

/** The observatory's zone; a document from before zones were stored reads as a write would have set it. */
export function observatoryTimeZone(options: { doc: Pick<ObservatoryDoc, "timeZone" | "location"> }): string {
  const { doc } = options;
  return doc.timeZone ?? timeZoneAt({ location: doc.location });
}

/** The settings estimates use, each default where the observatory has not set it. */
export function observatoryTiming(options: { doc: Pick<ObservatoryDoc, "settings"> }): ObservatoryTiming {
  const settings = options.doc.settings;
  return {
    slewSeconds: settings?.slewSeconds ?? defaultObservatoryTiming.slewSeconds,
    readoutSeconds: settings?.readoutSeconds ?? defaultObservatoryTiming.readoutSeconds,
  };
}

const sameLocation = (a: Location | null, b: Location | null) => a?.latitude === b?.latitude && a?.longitude === b?.longitude;

/**
 * The zone a settings change leaves: the one given (null: derive it again); else, when the location
 * moves, the new location's (contract: "when a location is set and no zone was given, it is derived
 * from the location"); else the current one, so a form that sends the location unchanged keeps a
 * zone chosen by hand.
 */
export function timeZoneAfter(options: {
  doc: Pick<ObservatoryDoc, "timeZone" | "location">;
  given: string | null | undefined;
  location: Location | null | undefined;
}): string {
  const { doc, given } = options;
  const location = options.location === undefined ? doc.location : options.location;
  if (given) return canonicalTimeZone(given) ?? given;
  if (given === null || !sameLocation(location, doc.location)) return timeZoneAt({ location });
  return observatoryTimeZone({ doc });
}
