import type { AssignedObservation } from "@meridian/observatory-client";
import type { ObservatorySimulator } from "@meridian/simulator";

/**
 * Four real observing sites of a small network, two to three observatories each (ten in all), for
 * the topology check's network case.
 */
export const SITES = [
  { name: "La Palma", location: { latitude: 28.7606, longitude: -17.8792, elevation: 2396 }, observatories: 3 },
  { name: "Cerro Tololo", location: { latitude: -30.1691, longitude: -70.8062, elevation: 2207 }, observatories: 3 },
  { name: "Siding Spring", location: { latitude: -31.2733, longitude: 149.0644, elevation: 1165 }, observatories: 2 },
  { name: "McDonald", location: { latitude: 30.6797, longitude: -104.0247, elevation: 2076 }, observatories: 2 },
] as const;

export type Site = (typeof SITES)[number];

const RADIANS = Math.PI / 180;

/** Greenwich mean sidereal time in degrees (IAU 1982, to a fraction of a second of time: far below what a target's altitude cares about). */
function siderealDegrees(at: Date): number {
  const daysSinceJ2000 = at.getTime() / 86_400_000 + 2_440_587.5 - 2_451_545.0;
  return (((280.46061837 + 360.98564736629 * daysSinceJ2000) % 360) + 360) % 360;
}

/** The unit vector of a site's zenith, in the Earth's frame. */
function zenith(site: Site): [number, number, number] {
  const { latitude, longitude } = site.location;
  const [lat, lon] = [latitude * RADIANS, longitude * RADIANS];
  return [Math.cos(lat) * Math.cos(lon), Math.cos(lat) * Math.sin(lon), Math.sin(lat)];
}

/** The angle, in degrees, between two sites' zeniths: a point of the sky midway stands 90° less half of it above both. */
function zenithSeparation(a: Site, b: Site): number {
  const [x, y] = [zenith(a), zenith(b)];
  return Math.acos(Math.min(1, x[0] * y[0] + x[1] * y[1] + x[2] * y[2])) / RADIANS;
}

/**
 * The pairs of sites that share sky: their zeniths at most 120° apart, so the point midway stands
 * at least 30° above both (La Palma and Siding Spring, nearly antipodes, do not).
 */
export function pairsSharingSky(): Array<[Site, Site]> {
  const pairs: Array<[Site, Site]> = [];
  for (let first = 0; first < SITES.length; first += 1)
    for (let second = first + 1; second < SITES.length; second += 1)
      if (zenithSeparation(SITES[first]!, SITES[second]!) <= 120) pairs.push([SITES[first]!, SITES[second]!]);
  return pairs;
}

/**
 * The point of the sky (J2000 RA and Dec, degrees) midway between the sites' zeniths at `at`: as
 * high above each as it can be above both. The sky turns 15° an hour, so it stays above 10° at each
 * for an hour at least.
 */
export function skyMidway(sites: readonly Site[], at: Date): { ra: number; dec: number } {
  const sum = sites.map(zenith).reduce((total, vector) => [total[0] + vector[0], total[1] + vector[1], total[2] + vector[2]], [0, 0, 0]);
  const length = Math.hypot(...sum);
  const dec = Math.asin(sum[2] / length) / RADIANS;
  const longitude = Math.atan2(sum[1], sum[0]) / RADIANS;
  const ra = (((siderealDegrees(at) + longitude) % 360) + 360) % 360;
  return { ra: Math.round(ra * 1e4) / 1e4, dec: Math.round(dec * 1e4) / 1e4 };
}

/** Where a simulated observatory's plugin dies: as an assignment reaches it (before it starts it), or once it reported one started. */
export type DeathMoment = "assigned" | "in_progress";

/**
 * Cuts the observatory's link without a word (its plugin's process dies: no goodbye, no further
 * report or upload) at the next `moment`; resolves with the observation it held then.
 */
export function dieAt(simulator: ObservatorySimulator, moment: DeathMoment): Promise<string> {
  return new Promise((resolve) => {
    const die = (observationId: string) => {
      simulator.dropOff();
      // Closing too ends the client's timers; the simulator's run of the observation finds no connection and gives up.
      void simulator.close();
      resolve(observationId);
    };
    if (moment === "assigned") {
      // Ahead of the simulator's own listener, which would report it started.
      simulator.prependOnceListener("assign", (observation: AssignedObservation) => die(observation.id));
      return;
    }
    const started = ({ observationId, status }: { observationId: string; status: string }) => {
      if (status !== "in_progress") return;
      simulator.off("status", started);
      die(observationId);
    };
    simulator.on("status", started);
  });
}
