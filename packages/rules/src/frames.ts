import { z } from "zod";

/**
 * A frame (an uploaded FITS image) as its analysis leaves it, and how frames are graded: the
 * stored document (`packages/db`), the API's read shape and the web app read these, so the
 * grade a page explains is the grade the server gave. Contract: "Frames: analysis, plate solving
 * and grading".
 */

export const frameStatuses = ["queued", "analysed", "failed"] as const;
export const solveFailures = ["CATALOG_MISSING", "TOO_FEW_STARS", "NOT_SOLVED"] as const;
/** Why a frame is rejected, in the order the checks apply. */
export const frameRejections = ["NOT_SOLVED", "OFF_TARGET", "TOO_FEW_STARS", "FWHM_TOO_HIGH", "ELONGATED"] as const;
export type FrameRejection = (typeof frameRejections)[number];
export type SolveFailure = (typeof solveFailures)[number];

/** The header cards Meridian reads, each null when the frame does not carry it. */
export const frameHeaderSchema = z.object({
  object: z.string().nullable(),
  dateObs: z.string().nullable(),
  exposureSeconds: z.number().nullable(),
  filter: z.string().nullable(),
  binning: z.number().int().nullable(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  ra: z.number().nullable(),
  dec: z.number().nullable(),
  imageType: z.string().nullable(),
});
export type FrameHeader = z.infer<typeof frameHeaderSchema>;

export const frameSolutionSchema = z.object({
  ra: z.number(),
  dec: z.number(),
  pixelScaleArcsec: z.number(),
  rotationDeg: z.number(),
  widthDeg: z.number(),
  heightDeg: z.number(),
});
export type FrameSolution = z.infer<typeof frameSolutionSchema>;

export const frameAnalysisSchema = z.object({
  status: z.enum(frameStatuses),
  failure: z.string().nullable(),
  header: frameHeaderSchema,
  targetName: z.string().nullable(),
  stars: z.number().int().nullable(),
  fwhmArcsec: z.number().nullable(),
  hfrArcsec: z.number().nullable(),
  eccentricity: z.number().nullable(),
  backgroundAdu: z.number().nullable(),
  solution: frameSolutionSchema.nullable(),
  solveFailure: z.enum(solveFailures).nullable(),
  pointingOffsetArcsec: z.number().nullable(),
  grade: z.enum(["accepted", "rejected"]).nullable(),
  rejectedFor: z.array(z.enum(frameRejections)),
  analysedAt: z.string().nullable(),
});
export type FrameAnalysis = z.infer<typeof frameAnalysisSchema>;

const emptyFrameHeader = (): FrameHeader => ({
  object: null,
  dateObs: null,
  exposureSeconds: null,
  filter: null,
  binning: null,
  width: null,
  height: null,
  ra: null,
  dec: null,
  imageType: null,
});

/** A frame whose analysis has not ended yet. */
export const queuedFrameAnalysis = (): FrameAnalysis => ({
  status: "queued",
  failure: null,
  header: emptyFrameHeader(),
  targetName: null,
  stars: null,
  fwhmArcsec: null,
  hfrArcsec: null,
  eccentricity: null,
  backgroundAdu: null,
  solution: null,
  solveFailure: null,
  pointingOffsetArcsec: null,
  grade: null,
  rejectedFor: [],
  analysedAt: null,
});

const frameGradingChecks = {
  maxOffsetArcmin: z.number().positive().max(10_800).nullable(),
  minStars: z.number().int().min(0).max(1_000_000).nullable(),
  maxFwhmArcsec: z.number().positive().max(3_600).nullable(),
  maxEccentricity: z.number().min(0).max(1).nullable(),
  repeatRejected: z.boolean(),
};
/** A project's grading as it reads: every check, `null` where it is off. */
export const frameGradingValuesSchema = z.strictObject(frameGradingChecks);
/** A change of a project's grading: the checks it names; the others stay as they are. */
export const frameGradingChangeSchema = frameGradingValuesSchema.partial();

/** A project's grading; `null` switches a check off. The defaults are the contract's. */
export const frameGradingSchema = z.object({
  maxOffsetArcmin: frameGradingChecks.maxOffsetArcmin.default(10),
  minStars: frameGradingChecks.minStars.default(10),
  maxFwhmArcsec: frameGradingChecks.maxFwhmArcsec.default(null),
  maxEccentricity: frameGradingChecks.maxEccentricity.default(null),
  repeatRejected: frameGradingChecks.repeatRejected.default(false),
});
export type FrameGrading = z.infer<typeof frameGradingSchema>;
export const DEFAULT_FRAME_GRADING: FrameGrading = Object.freeze(frameGradingSchema.parse({}));

type Measured = Pick<FrameAnalysis, "solution" | "solveFailure" | "pointingOffsetArcsec" | "stars" | "fwhmArcsec" | "eccentricity">;

/**
 * A frame's grade: rejected for each check that applies, in the contract's order; accepted
 * otherwise. A frame that was not solved is rejected unless the catalog was missing: then the
 * offset cannot be known and its check is skipped, not failed. A measure that is unknown (no
 * stars, so no FWHM) fails no check of its own.
 */
export function gradeFrame(
  measured: Measured,
  grading: FrameGrading = DEFAULT_FRAME_GRADING,
): { grade: "accepted" | "rejected"; rejectedFor: FrameRejection[] } {
  const applies: Record<FrameRejection, boolean> = {
    NOT_SOLVED: measured.solution === null && measured.solveFailure !== "CATALOG_MISSING",
    OFF_TARGET: grading.maxOffsetArcmin !== null && measured.pointingOffsetArcsec !== null && measured.pointingOffsetArcsec > grading.maxOffsetArcmin * 60,
    TOO_FEW_STARS: grading.minStars !== null && (measured.stars ?? 0) < grading.minStars,
    FWHM_TOO_HIGH: grading.maxFwhmArcsec !== null && measured.fwhmArcsec !== null && measured.fwhmArcsec > grading.maxFwhmArcsec,
    ELONGATED: grading.maxEccentricity !== null && measured.eccentricity !== null && measured.eccentricity > grading.maxEccentricity,
  };
  const rejectedFor = frameRejections.filter((code) => applies[code]);
  return { grade: rejectedFor.length > 0 ? "rejected" : "accepted", rejectedFor };
}

/** The angle between two points of the sky, in arcseconds (haversine: exact for small angles too). */
export function separationArcsec(a: { ra: number; dec: number }, b: { ra: number; dec: number }): number {
  const rad = Math.PI / 180;
  const sinDec = Math.sin(((b.dec - a.dec) * rad) / 2);
  const sinRa = Math.sin(((b.ra - a.ra) * rad) / 2);
  const h = sinDec * sinDec + Math.cos(a.dec * rad) * Math.cos(b.dec * rad) * sinRa * sinRa;
  return ((2 * Math.asin(Math.min(1, Math.sqrt(h)))) / rad) * 3600;
}
