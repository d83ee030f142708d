interface Step {
  title: string;
  description: string;
  holds(path: string): boolean;
}

/** The wizard's steps and the fields (by the API's paths) each one holds, so a problem, ours or the server's, is shown on its step. */
export const steps: readonly Step[] = [
  {
    title: "Observation",
    description: "Its name, and where it goes.",
    holds: (path: string) => /^(name|projectId|observatoryId|candidateObservatoryIds|storageDestinationId)(\.|$)/.test(path),
  },
  { title: "Targets", description: "What to point at, and the exposures to take of each.", holds: (path: string) => /^targets(\.|$)/.test(path) },
  {
    title: "Scheduling",
    description: "When it may run, and what the sky must be like.",
    holds: (path: string) => /^(type|priority|fixedTimeStart|fixedTimeEnd|bypassDarkness|constraints|monitoring)(\.|$)/.test(path),
  },
  { title: "Notifications", description: "How and when you hear of it.", holds: (path: string) => /^notifications(\.|$)/.test(path) },
  { title: "Review", description: "Everything that will be sent. Change what you need, then submit.", holds: () => false },
];

export const REVIEW_STEP = steps.length - 1;

/** The step holding the field at `path`; a path no step holds (the whole request) belongs to the review. */
export function stepOf(path: string): number {
  const index = steps.findIndex((step) => step.holds(path));
  return index === -1 ? REVIEW_STEP : index;
}
