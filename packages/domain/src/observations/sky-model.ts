import {
  AngleBetween,
  Body,
  Equator,
  EquatorFromVector,
  MakeTime,
  Observer,
  Refraction,
  RotateVector,
  Rotation_EQJ_EQD,
  SiderealTime,
  Spherical,
  VectorFromSphere,
  type Vector,
} from "astronomy-engine";
import { twilightSunAltitude, type Twilight } from "@meridian/rules";
import { darkInterval, type Location } from "./sky";

/** A position on the sky in J2000 degrees. */
export interface SkyTarget {
  ra: number;
  dec: number;
}

/** The sky over one location at one moment: what every eligibility rule asks of it. */
export interface SkyAt {
  at: Date;
  /** The sun's geometric altitude in degrees (twilight is defined without refraction). */
  sunAltitude: number;
  isDark(twilight: Twilight): boolean;
  /** Altitude in degrees, refraction included, as astronomy-engine's `Horizon(…, "normal")` gives it. */
  targetAltitude(target: SkyTarget): number;
  /** Angular distance in degrees from the Moon, seen from the location. */
  moonDistance(target: SkyTarget): number;
}

export interface SkyModel {
  location: Location;
  at(moment: Date): SkyAt;
  /** The dark intervals for a twilight that overlap [fromMs, toMs], in order (epoch milliseconds). */
  darkIntervals(twilight: Twilight, fromMs: number, toMs: number): ReadonlyArray<{ start: number; end: number }>;
  /**
   * The target's highest altitude between two moments, without refraction: at its transit when that
   * falls between them, else at the nearer end. A cheap bound that lets a search skip a night.
   */
  highestAltitude(target: SkyTarget, fromMs: number, toMs: number): number;
}

const RADIANS = Math.PI / 180;
/** Sidereal hours per solar hour. */
const SIDEREAL_RATE = 1.00273790935;
/** Moments kept per model: a week of minutes, more than one plan or queue ever asks about. */
const MOMENT_CACHE_LIMIT = 7 * 24 * 60 + 60;

/**
 * The sky over a location, cheap to ask many times. The sun, the Moon and the sidereal time are
 * computed once per moment; a target's position of date once per model (precession moves it by
 * about a second of arc a week), and its altitude from the hour angle with astronomy-engine's own
 * refraction, which is what `Horizon` does (the unit test holds them equal). Dispatch, the queue
 * and the night plan all ask through this, so they cannot disagree about a constraint.
 */
export function skyModel(options: { location: Location }): SkyModel {
  const { location } = options;
  const observer = new Observer(location.latitude, location.longitude, location.elevation);
  const sinLatitude = Math.sin(location.latitude * RADIANS);
  const cosLatitude = Math.cos(location.latitude * RADIANS);
  // Keyed by the target object itself: observations hold theirs for as long as a plan runs.
  const ofDate = new WeakMap<SkyTarget, { raHours: number; sinDec: number; cosDec: number; vector: Vector }>();
  const moments = new Map<number, SkyAt>();

  const positionOf = (target: SkyTarget, at: Date) => {
    let position = ofDate.get(target);
    if (!position) {
      const time = MakeTime(at);
      const equator = EquatorFromVector(RotateVector(Rotation_EQJ_EQD(time), VectorFromSphere(new Spherical(target.dec, target.ra, 1), time)));
      position = {
        raHours: equator.ra,
        sinDec: Math.sin(equator.dec * RADIANS),
        cosDec: Math.cos(equator.dec * RADIANS),
        vector: VectorFromSphere(new Spherical(equator.dec, equator.ra * 15, 1), time),
      };
      ofDate.set(target, position);
    }
    return position;
  };

  const compute = (at: Date): SkyAt => {
    const time = MakeTime(at);
    const localSiderealHours = SiderealTime(at) + location.longitude / 15;
    const altitudeSine = (raHours: number, sinDec: number, cosDec: number) =>
      sinLatitude * sinDec + cosLatitude * cosDec * Math.cos((localSiderealHours - raHours) * 15 * RADIANS);
    const sun = Equator(Body.Sun, at, observer, true, true);
    const sunAltitude = Math.asin(altitudeSine(sun.ra, Math.sin(sun.dec * RADIANS), Math.cos(sun.dec * RADIANS))) / RADIANS;
    const moon = Equator(Body.Moon, at, observer, true, true);
    const moonVector = VectorFromSphere(new Spherical(moon.dec, moon.ra * 15, 1), time);
    return {
      at,
      sunAltitude,
      isDark: (twilight) => sunAltitude < twilightSunAltitude[twilight],
      targetAltitude(target) {
        const position = positionOf(target, at);
        const geometric = Math.asin(Math.max(-1, Math.min(1, altitudeSine(position.raHours, position.sinDec, position.cosDec)))) / RADIANS;
        return geometric + Refraction("normal", geometric);
      },
      moonDistance(target) {
        return AngleBetween(moonVector, positionOf(target, at).vector);
      },
    };
  };

  const darkness = new Map<Twilight, { from: number; to: number; intervals: Array<{ start: number; end: number }> }>();
  const geometricAltitude = (target: SkyTarget, ms: number) => {
    const position = positionOf(target, new Date(ms));
    const localSiderealHours = SiderealTime(new Date(ms)) + location.longitude / 15;
    const sine = sinLatitude * position.sinDec + cosLatitude * position.cosDec * Math.cos((localSiderealHours - position.raHours) * 15 * RADIANS);
    return Math.asin(Math.max(-1, Math.min(1, sine))) / RADIANS;
  };

  return {
    location,
    darkIntervals(twilight, fromMs, toMs) {
      let cached = darkness.get(twilight);
      if (!cached || cached.from > fromMs || cached.to < toMs) {
        const from = Math.min(fromMs, cached?.from ?? fromMs);
        const to = Math.max(toMs, cached?.to ?? toMs);
        const intervals: Array<{ start: number; end: number }> = [];
        for (let at = from; at <= to;) {
          const interval = darkInterval({ location, twilight, at: new Date(at) });
          if (!interval) break;
          intervals.push({ start: interval.start.getTime(), end: interval.end.getTime() });
          at = interval.end.getTime() + 60_000;
        }
        cached = { from, to, intervals };
        darkness.set(twilight, cached);
      }
      return cached.intervals.filter((interval) => interval.end >= fromMs && interval.start <= toMs);
    },
    highestAltitude(target, fromMs, toMs) {
      const position = positionOf(target, new Date(fromMs));
      const hourAngle = ((((SiderealTime(new Date(fromMs)) + location.longitude / 15 - position.raHours) % 24) + 36) % 24) - 12;
      const transit = fromMs + ((hourAngle <= 0 ? -hourAngle : 24 - hourAngle) / SIDEREAL_RATE) * 3_600_000;
      return Math.max(geometricAltitude(target, fromMs), geometricAltitude(target, toMs), transit <= toMs ? geometricAltitude(target, transit) : -90);
    },
    at(moment) {
      const key = moment.getTime();
      let sky = moments.get(key);
      if (!sky) {
        if (moments.size >= MOMENT_CACHE_LIMIT) moments.clear();
        sky = compute(moment);
        moments.set(key, sky);
      }
      return sky;
    },
  };
}
