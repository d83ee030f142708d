import type { ObservationDoc, ObservatoryDoc } from "@meridian/db";

const DEFAULT_SLEW_SECONDS = 120;
const DEFAULT_READOUT_SECONDS = 10;

/** How long an observation holds the observatory: a slew per target, then each exposure and its readout. */
export function estimatedSecondsOf(options: { doc: ObservationDoc; observatory: ObservatoryDoc }): number {
  const settings = (options.observatory as { settings?: { slewSeconds?: number; readoutSeconds?: number } }).settings;
  const slew = settings?.slewSeconds ?? DEFAULT_SLEW_SECONDS;
  const readout = settings?.readoutSeconds ?? DEFAULT_READOUT_SECONDS;
  return options.doc.targets.reduce(
    (total, target) => total + slew + target.exposures.reduce((sum, exposure) => sum + exposure.count * (exposure.exposureSeconds + readout), 0),
    0,
  );
}
