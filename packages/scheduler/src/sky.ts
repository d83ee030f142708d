import {
  AngleBetween,
  Body,
  Equator,
  EquatorFromVector,
  Horizon,
  Observer,
  Refraction,
  Rotation_EQJ_EQD,
  RotateVector,
  SearchAltitude,
  Spherical,
  VectorFromSphere,
  MakeTime,
} from "astronomy-engine";
import { twilightSunAltitude, type Twilight } from "@meridian/rules";

export interface Location {
  latitude: number;
  longitude: number;
  elevation: number;
}

/** A position on the sky in J2000 degrees. */
type Target = { ra: number; dec: number };

const observerAt = (location: Location) => new Observer(location.latitude, location.longitude, location.elevation);

/**
 * The sun's geometric altitude in degrees (no refraction), seen from the location at that moment:
 * twilight is defined by it (−6°, −12°, −18°), and refraction would move each boundary by minutes.
 */
export function sunAltitude({ location, at }: { location: Location; at: Date }): number {
  const observer = observerAt(location);
  const sun = Equator(Body.Sun, at, observer, true, true);
  return Horizon(at, observer, sun.ra, sun.dec).altitude;
}

const isDark = ({ location, twilight, at }: { location: Location; twilight: Twilight; at: Date }) =>
  sunAltitude({ location, at }) < twilightSunAltitude[twilight];

/**
 * The dark interval (sun below the twilight's altitude) that holds `at`, or else the next one,
 * searched up to two days ahead; null where none is found (a polar summer).
 */
export function darkInterval({ location, twilight, at }: { location: Location; twilight: Twilight; at: Date }): { start: Date; end: Date } | null {
  const observer = observerAt(location);
  const altitude = twilightSunAltitude[twilight];
  if (isDark({ location, twilight, at })) {
    const dawn = SearchAltitude(Body.Sun, observer, +1, at, 2, altitude);
    // The dusk before `at`: the last descending crossing in the day and a half before it.
    let dusk: Date | undefined;
    for (let from = new Date(at.getTime() - 36 * 3_600_000); ;) {
      const crossing = SearchAltitude(Body.Sun, observer, -1, from, 2, altitude);
      if (!crossing || crossing.date > at) break;
      dusk = crossing.date;
      from = new Date(crossing.date.getTime() + 60_000);
    }
    return { start: dusk ?? at, end: dawn?.date ?? new Date(at.getTime() + 2 * 86_400_000) };
  }
  const dusk = SearchAltitude(Body.Sun, observer, -1, at, 2, altitude);
  if (!dusk) return null;
  const dawn = SearchAltitude(Body.Sun, observer, +1, dusk.date, 2, altitude);
  return { start: dusk.date, end: dawn?.date ?? new Date(dusk.date.getTime() + 2 * 86_400_000) };
}

/** A J2000 position (degrees) precessed to the equator of date, as RA hours and Dec degrees. */
function ofDate(raDegrees: number, decDegrees: number, at: Date) {
  const time = MakeTime(at);
  const vector = VectorFromSphere(new Spherical(decDegrees, raDegrees, 1), time);
  return EquatorFromVector(RotateVector(Rotation_EQJ_EQD(time), vector));
}

/** A target's altitude in degrees (refraction included). */
export function targetAltitude({ location, target, at }: { location: Location; target: Target; at: Date }): number {
  const position = ofDate(target.ra, target.dec, at);
  return Horizon(at, observerAt(location), position.ra, position.dec, "normal").altitude;
}

/**
 * The highest a target ever stands at the location, refraction included: at its upper culmination,
 * 90° less its declination's distance from the latitude. Its J2000 position is precessed to `at`;
 * a year's precession moves it by well under a minute of arc, so this holds for the nights ahead.
 */
export function culminationAltitude({ location, target, at }: { location: Location; target: Target; at: Date }): number {
  const geometric = 90 - Math.abs(location.latitude - ofDate(target.ra, target.dec, at).dec);
  return geometric + Refraction("normal", geometric);
}

/** Kasten and Young's (1989) relative airmass; Infinity at or below the horizon. */
export function airmass(altitudeDegrees: number): number {
  if (altitudeDegrees <= 0) return Infinity;
  return 1 / (Math.sin((altitudeDegrees * Math.PI) / 180) + 0.50572 * (altitudeDegrees + 6.07995) ** -1.6364);
}

/** Angular distance in degrees between the Moon and a target, as seen from the location. */
export function moonDistance({ location, target, at }: { location: Location; target: Target; at: Date }): number {
  const observer = observerAt(location);
  const moon = Equator(Body.Moon, at, observer, true, true);
  const position = ofDate(target.ra, target.dec, at);
  const time = MakeTime(at);
  const toVector = (ra: number, dec: number) => VectorFromSphere(new Spherical(dec, ra * 15, 1), time);
  return AngleBetween(toVector(moon.ra, moon.dec), toVector(position.ra, position.dec));
}
