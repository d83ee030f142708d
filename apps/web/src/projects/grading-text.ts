import { frameGradingValuesSchema, type FrameGrading } from "@meridian/rules/frames";

/** The grading checks a project switches on or off; `repeatRejected` is a plain yes or no. */
export type GradingCheck = "maxOffsetArcmin" | "minStars" | "maxFwhmArcsec" | "maxEccentricity";

/** A check as its form holds it: on or off, and the limit as typed (kept while it is off, for switching back). */
export interface CheckText {
  on: boolean;
  text: string;
}
export type GradingText = Record<GradingCheck, CheckText> & { repeatRejected: boolean };

interface CheckInfo {
  title: string;
  description: string;
  label: string;
  hint: string;
  /** What the field needs, said when what was typed does not do. */
  invalid: string;
  inputMode: "decimal" | "numeric";
}

/** Each check in the order the server applies them (after NOT_SOLVED, which is not a setting), with its words. */
export const gradingChecks: ReadonlyArray<[GradingCheck, CheckInfo]> = [
  [
    "maxOffsetArcmin",
    {
      title: "Pointing offset",
      description: "Reject a frame whose solved centre lies farther from its target than this. Skipped while the server has no star catalog.",
      label: "Largest offset (arcminutes)",
      hint: "More than 0, at most 10,800. 10 unless changed.",
      invalid: "Give the largest offset in arcminutes: a number more than 0, at most 10,800.",
      inputMode: "decimal",
    },
  ],
  [
    "minStars",
    {
      title: "Star count",
      description: "Reject a frame with fewer stars than this: clouds, dew or a closed dome.",
      label: "Fewest stars",
      hint: "A whole number from 0 to 1,000,000. 10 unless changed.",
      invalid: "Give the fewest stars as a whole number from 0 to 1,000,000.",
      inputMode: "numeric",
    },
  ],
  [
    "maxFwhmArcsec",
    {
      title: "Sharpness (FWHM)",
      description: "Reject a frame whose stars are wider than this (the median FWHM): poor seeing or focus.",
      label: "Largest FWHM (arcseconds)",
      hint: "More than 0, at most 3,600. Off unless changed.",
      invalid: "Give the largest FWHM in arcseconds: a number more than 0, at most 3,600.",
      inputMode: "decimal",
    },
  ],
  [
    "maxEccentricity",
    {
      title: "Round stars (eccentricity)",
      description: "Reject a frame whose stars are more elongated than this (the median eccentricity): trailing, tracking or wind.",
      label: "Largest eccentricity",
      hint: "From 0 (round) to 1 (a line). Off unless changed.",
      invalid: "Give the largest eccentricity: a number from 0 (round) to 1 (a line).",
      inputMode: "decimal",
    },
  ],
];

export const gradingText = (grading: FrameGrading): GradingText => {
  const check = (value: number | null): CheckText => ({ on: value !== null, text: value === null ? "" : String(value) });
  return {
    maxOffsetArcmin: check(grading.maxOffsetArcmin),
    minStars: check(grading.minStars),
    maxFwhmArcsec: check(grading.maxFwhmArcsec),
    maxEccentricity: check(grading.maxEccentricity),
    repeatRejected: grading.repeatRejected,
  };
};

/** The limit typed, as the API takes it: `null` for a check switched off; NaN for text that is no number. */
function valueOf(check: CheckText): number | null {
  if (!check.on) return null;
  return check.text.trim() === "" ? Number.NaN : Number(check.text.trim());
}

/** What is wrong with a check as typed, by the API's own bounds (`@meridian/rules/frames`); null when it will do. */
export function checkProblem(field: GradingCheck, check: CheckText): string | null {
  return frameGradingValuesSchema.shape[field].safeParse(valueOf(check)).success ? null : gradingChecks.find(([name]) => name === field)![1].invalid;
}

/** The change to save: only the checks that differ from the saved grading (the others stay as they are). */
export function gradingChange(saved: FrameGrading, text: GradingText): Partial<FrameGrading> {
  const change: Partial<FrameGrading> = {};
  for (const [field] of gradingChecks) {
    const value = valueOf(text[field]);
    if (value !== saved[field]) change[field] = value;
  }
  if (text.repeatRejected !== saved.repeatRejected) change.repeatRejected = text.repeatRejected;
  return change;
}
