import { twilightSunAltitude } from "@meridian/rules";
import { Body, Observer, SearchAltitude } from "astronomy-engine";
import type { Night } from "./night";
import type { Location } from "./sky";

/**
 * When civil (−6°) and nautical (−12°) twilight end after the night's sunset and begin again before
 * its sunrise: with the night's astronomical darkness, the bands a timeline shades. Null where the
 * sun does not get that low that night.
 */
export interface TwilightBoundaries {
  civilDusk: Date | null;
  nauticalDusk: Date | null;
  nauticalDawn: Date | null;
  civilDawn: Date | null;
}

const DAY_MS = 86_400_000;

export function twilightBoundaries(options: { location: Location; night: Night }): TwilightBoundaries {
  const { location, night } = options;
  const observer = new Observer(location.latitude, location.longitude, location.elevation);
  const spanDays = (night.sunrise.getTime() - night.sunset.getTime()) / DAY_MS;
  // The same search as the night's darkness (nightOf), so the bands meet it without a gap.
  const crossing = (altitude: number) => {
    const dusk = SearchAltitude(Body.Sun, observer, -1, night.sunset, spanDays, altitude)?.date;
    if (!dusk || dusk >= night.sunrise) return { dusk: null, dawn: null };
    const dawn = SearchAltitude(Body.Sun, observer, +1, dusk, spanDays, altitude)?.date;
    return { dusk, dawn: dawn && dawn < night.sunrise ? dawn : night.sunrise };
  };
  const civil = crossing(twilightSunAltitude.civil);
  const nautical = crossing(twilightSunAltitude.nautical);
  return { civilDusk: civil.dusk, nauticalDusk: nautical.dusk, nauticalDawn: nautical.dawn, civilDawn: civil.dawn };
}
