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
  /** The same without refraction (lower by less than a degree above the horizon). */
  geometricAltitude(target: SkyTarget): number;
  /** Angular distance in degrees from the Moon, seen from the location. */
  moonDistance(target: SkyTarget): number;
}

export interface SkyModel {
  location: Location;
  at(moment: Date): SkyAt;
  /** The same for a moment in epoch milliseconds. */
  atMs(ms: number): SkyAt;
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
 * The sun's and the Moon's positions are computed at these steps and interpolated between: over an
 * hour the sun's path is straight to well under a thousandth of a degree (a quarter of a second of a
 * twilight boundary), and over ten minutes the Moon's, parallax included, to about a ten-thousandth.
 */
const SUN_STEP_MS = 3_600_000;
const MOON_STEP_MS = 600_000;

/**
 * The sky over a location, cheap to ask many times. The sidereal time is computed once per moment;
 * the sun's and the Moon's topocentric positions of date at fixed steps and interpolated (the Moon
 * only when a constraint asks for it); a target's position of date once per model (precession moves
 * it by about a second of arc a week), and its altitude from the hour angle with astronomy-engine's
 * own refraction, which is what `Horizon` does (sky-model.test.ts holds them together). Dispatch,
 * the queue and the night plan all ask through this, so they cannot disagree about a constraint.
 */
/** What a moment needs of its model: the site's latitude, targets' positions of date and the Moon. */
interface Geometry {
  sinLatitude: number;
  cosLatitude: number;
  positionOf(target: SkyTarget, at: Date): { raHours: number; sinDec: number; cosDec: number; vector: Vector };
  moonAt(at: Date): { ra: number; dec: number };
}

/** One moment of the sky (a class, so a week of minutes costs no closures per moment). */
class SkyMoment implements SkyAt {
  readonly sunAltitude: number;
  private moonVector: Vector | undefined;

  constructor(
    readonly at: Date,
    private readonly localSiderealHours: number,
    sun: { ra: number; dec: number },
    private readonly geometry: Geometry,
  ) {
    this.sunAltitude = Math.asin(this.altitudeSine(sun.ra, Math.sin(sun.dec * RADIANS), Math.cos(sun.dec * RADIANS))) / RADIANS;
  }

  private altitudeSine(raHours: number, sinDec: number, cosDec: number) {
    const { sinLatitude, cosLatitude } = this.geometry;
    return sinLatitude * sinDec + cosLatitude * cosDec * Math.cos((this.localSiderealHours - raHours) * 15 * RADIANS);
  }

  isDark(twilight: Twilight) {
    return this.sunAltitude < twilightSunAltitude[twilight];
  }

  geometricAltitude(target: SkyTarget) {
    const position = this.geometry.positionOf(target, this.at);
    return Math.asin(Math.max(-1, Math.min(1, this.altitudeSine(position.raHours, position.sinDec, position.cosDec)))) / RADIANS;
  }

  targetAltitude(target: SkyTarget) {
    const geometric = this.geometricAltitude(target);
    return geometric + Refraction("normal", geometric);
  }

  moonDistance(target: SkyTarget) {
    if (!this.moonVector) {
      const moon = this.geometry.moonAt(this.at);
      this.moonVector = VectorFromSphere(new Spherical(moon.dec, moon.ra * 15, 1), MakeTime(this.at));
    }
    return AngleBetween(this.moonVector, this.geometry.positionOf(target, this.at).vector);
  }
}

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

  const anchors = { [Body.Sun]: new Map<number, { ra: number; dec: number }>(), [Body.Moon]: new Map<number, { ra: number; dec: number }>() };
  /** A body's topocentric equator of date (RA hours, Dec degrees), interpolated between its steps. */
  const bodyAt = (body: Body.Sun | Body.Moon, ms: number) => {
    const step = body === Body.Sun ? SUN_STEP_MS : MOON_STEP_MS;
    const anchor = (at: number) => {
      let position = anchors[body].get(at);
      if (!position) {
        const equator = Equator(body, new Date(at), observer, true, true);
        position = { ra: equator.ra, dec: equator.dec };
        anchors[body].set(at, position);
      }
      return position;
    };
    const from = Math.floor(ms / step) * step;
    const before = anchor(from);
    if (ms === from) return before;
    const after = anchor(from + step);
    const fraction = (ms - from) / step;
    // Right ascension wraps at 24 h.
    const raStep = ((after.ra - before.ra + 36) % 24) - 12;
    return { ra: (before.ra + fraction * raStep + 24) % 24, dec: before.dec + fraction * (after.dec - before.dec) };
  };

  const compute = (at: Date): SkyAt => {
    const sun = bodyAt(Body.Sun, at.getTime());
    const localSiderealHours = SiderealTime(at) + location.longitude / 15;
    return new SkyMoment(at, localSiderealHours, sun, geometry);
  };
  const geometry: Geometry = { sinLatitude, cosLatitude, positionOf, moonAt: (at) => bodyAt(Body.Moon, at.getTime()) };

  const darkness = new Map<Twilight, { from: number; to: number; intervals: Array<{ start: number; end: number }>; next: number }>();
  const geometricAltitude = (target: SkyTarget, ms: number) => {
    const position = positionOf(target, new Date(ms));
    const localSiderealHours = SiderealTime(new Date(ms)) + location.longitude / 15;
    const sine = sinLatitude * position.sinDec + cosLatitude * position.cosDec * Math.cos((localSiderealHours - position.raHours) * 15 * RADIANS);
    return Math.asin(Math.max(-1, Math.min(1, sine))) / RADIANS;
  };

  const atMs = (ms: number): SkyAt => {
    let sky = moments.get(ms);
    if (!sky) {
      if (moments.size >= MOMENT_CACHE_LIMIT) moments.clear();
      sky = compute(new Date(ms));
      moments.set(ms, sky);
    }
    return sky;
  };

  return {
    location,
    darkIntervals(twilight, fromMs, toMs) {
      let cached = darkness.get(twilight);
      if (!cached || cached.from > fromMs || cached.to < toMs) {
        // Found one after the other from the earliest moment asked: asked further on, the same search goes on from where it
        // stopped (what it found before is what it would find again); asked earlier, it starts again from there.
        const from = Math.min(fromMs, cached?.from ?? fromMs);
        const to = Math.max(toMs, cached?.to ?? toMs);
        const kept = cached && cached.from === from ? cached : { from, to, intervals: [], next: from };
        for (let at = kept.next; at <= to;) {
          const interval = darkInterval({ location, twilight, at: new Date(at) });
          if (!interval) {
            kept.next = Infinity;
            break;
          }
          kept.intervals.push({ start: interval.start.getTime(), end: interval.end.getTime() });
          at = kept.next = interval.end.getTime() + 60_000;
        }
        cached = { ...kept, to };
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
    at: (moment) => atMs(moment.getTime()),
    atMs,
  };
}
