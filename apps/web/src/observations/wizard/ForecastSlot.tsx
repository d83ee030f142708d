import type { ObservationInput } from "./draft";

/**
 * Where the review shows how long the observation will take (`estimatedSeconds`) and when it is
 * expected to run (`GET /observations/{id}/forecast`) once the API computes them for a draft. Until
 * then it shows nothing rather than a guess.
 */
export function ForecastSlot(_props: { input: ObservationInput }) {
  return null;
}
