import { describe, expect, it } from "vitest";
import { DEFAULT_FRAME_GRADING, frameGradingSchema, gradeFrame, separationArcsec } from "./frames";

const solution = { ra: 10, dec: 20, pixelScaleArcsec: 1.5, rotationDeg: 0, widthDeg: 1, heightDeg: 1 };
const good = { solution, solveFailure: null, pointingOffsetArcsec: 30, stars: 200, fwhmArcsec: 2.5, eccentricity: 0.3 };

describe("frame grading", () => {
  it("has the contract's defaults", () => {
    expect(DEFAULT_FRAME_GRADING).toEqual({ maxOffsetArcmin: 10, minStars: 10, maxFwhmArcsec: null, maxEccentricity: null, repeatRejected: false });
  });

  it("accepts a solved frame on target with enough stars", () => {
    expect(gradeFrame(good)).toEqual({ grade: "accepted", rejectedFor: [] });
  });

  it("rejects for every check that applies, in the contract's order", () => {
    const grading = frameGradingSchema.parse({ maxFwhmArcsec: 2, maxEccentricity: 0.5 });
    const bad = { solution: null, solveFailure: "NOT_SOLVED" as const, pointingOffsetArcsec: null, stars: 3, fwhmArcsec: 4, eccentricity: 0.8 };
    expect(gradeFrame(bad, grading)).toEqual({ grade: "rejected", rejectedFor: ["NOT_SOLVED", "TOO_FEW_STARS", "FWHM_TOO_HIGH", "ELONGATED"] });
    const offTarget = { ...good, pointingOffsetArcsec: 10 * 60 + 1, stars: 9, fwhmArcsec: 2.01, eccentricity: 0.51 };
    expect(gradeFrame(offTarget, grading).rejectedFor).toEqual(["OFF_TARGET", "TOO_FEW_STARS", "FWHM_TOO_HIGH", "ELONGATED"]);
  });

  it("holds each limit inclusive: at the limit is accepted", () => {
    const grading = frameGradingSchema.parse({ maxOffsetArcmin: 5, minStars: 200, maxFwhmArcsec: 2.5, maxEccentricity: 0.3 });
    expect(gradeFrame({ ...good, pointingOffsetArcsec: 300 }, grading)).toEqual({ grade: "accepted", rejectedFor: [] });
  });

  it("switches a check off with null", () => {
    const grading = frameGradingSchema.parse({ maxOffsetArcmin: null, minStars: null });
    expect(gradeFrame({ ...good, pointingOffsetArcsec: 3600 * 30, stars: 0 }, grading)).toEqual({ grade: "accepted", rejectedFor: [] });
  });

  it("skips the offset without a catalog instead of rejecting the frame as unsolved", () => {
    const unsolvable = { ...good, solution: null, solveFailure: "CATALOG_MISSING" as const, pointingOffsetArcsec: null };
    expect(gradeFrame(unsolvable)).toEqual({ grade: "accepted", rejectedFor: [] });
    expect(gradeFrame({ ...unsolvable, stars: 2 }).rejectedFor).toEqual(["TOO_FEW_STARS"]);
  });

  it("counts a frame with too few stars to solve as unsolved", () => {
    const few = { ...good, solution: null, solveFailure: "TOO_FEW_STARS" as const, pointingOffsetArcsec: null, stars: 2, fwhmArcsec: null, eccentricity: null };
    expect(gradeFrame(few, frameGradingSchema.parse({ maxFwhmArcsec: 1, maxEccentricity: 0.1 })).rejectedFor).toEqual(["NOT_SOLVED", "TOO_FEW_STARS"]);
  });

  it("refuses settings out of range", () => {
    expect(frameGradingSchema.safeParse({ maxEccentricity: 1.5 }).success).toBe(false);
    expect(frameGradingSchema.safeParse({ minStars: -1 }).success).toBe(false);
    expect(frameGradingSchema.safeParse({ maxOffsetArcmin: 0 }).success).toBe(false);
  });
});

describe("separation on the sky", () => {
  it("measures arcseconds, across RA 0 and near the pole", () => {
    expect(separationArcsec({ ra: 10, dec: 0 }, { ra: 10, dec: 1 })).toBeCloseTo(3600, 6);
    expect(separationArcsec({ ra: 359.9, dec: 0 }, { ra: 0.1, dec: 0 })).toBeCloseTo(720, 6);
    expect(separationArcsec({ ra: 0, dec: 89.9 }, { ra: 180, dec: 89.9 })).toBeCloseTo(720, 4);
    expect(separationArcsec({ ra: 10, dec: 20 }, { ra: 10, dec: 20 })).toBe(0);
  });
});
