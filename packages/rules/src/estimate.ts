/**
 * How long an observation holds its observatory (contract, "Time and duration"): a slew to each
 * target, then every exposure and its readout. The API's `estimatedSeconds` and the wizard's review
 * compute it here, so both show the same number for the same observatory settings.
 */

/** What the observatory's settings say about time, and their defaults when it has never set them. */
export interface ObservatoryTiming {
  slewSeconds: number;
  readoutSeconds: number;
}
export const defaultObservatoryTiming: Readonly<ObservatoryTiming> = { slewSeconds: 120, readoutSeconds: 10 };
/** The bounds the API holds settings to: a slew of up to an hour, a readout of up to ten minutes. */
export const observatoryTimingBounds: Readonly<Record<keyof ObservatoryTiming, { min: number; max: number }>> = {
  slewSeconds: { min: 0, max: 3600 },
  readoutSeconds: { min: 0, max: 600 },
};

interface TimedTarget {
  exposures: ReadonlyArray<{ exposureSeconds: number; count: number }>;
}

/** `slewSeconds` per target + Σ count × (exposureSeconds + readoutSeconds), to the millisecond (sums of fractions drift otherwise). */
export function estimatedSeconds(options: { targets: ReadonlyArray<TimedTarget>; timing: ObservatoryTiming }): number {
  const { targets, timing } = options;
  let total = 0;
  for (const target of targets) {
    total += timing.slewSeconds;
    for (const exposure of target.exposures) total += exposure.count * (exposure.exposureSeconds + timing.readoutSeconds);
  }
  return Math.round(total * 1000) / 1000;
}

/** A duration as people read it: "2 h 5 min", "5 min 30 s", "45 s". */
export function formatDuration(seconds: number): string {
  const whole = Math.round(seconds);
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = whole % 60;
  if (hours > 0) return minutes > 0 ? `${hours} h ${minutes} min` : `${hours} h`;
  if (minutes > 0) return rest > 0 ? `${minutes} min ${rest} s` : `${minutes} min`;
  return `${rest} s`;
}
