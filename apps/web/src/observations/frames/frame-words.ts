import type { FrameAnalysis, FrameGrading, FrameRejection, SolveFailure } from "@meridian/rules/frames";
import { formatDec, formatRa } from "../labels";

/** What the page knows of a frame's analysis (the read shape's `frame`). */
export type Frame = FrameAnalysis;

/** The project's limits a rejection is measured against; unknown when the reader may not see the project. */
export type GradingLimits = Pick<FrameGrading, "maxOffsetArcmin" | "minStars" | "maxFwhmArcsec" | "maxEccentricity"> | undefined;

const oneDecimal = (value: number) => value.toLocaleString("en", { maximumFractionDigits: 1 });
const twoDecimals = (value: number) => value.toLocaleString("en", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Seconds of arc as "42″", or minutes of arc ("12.3′") from a minute on. */
export function formatOffset(arcsec: number): string {
  return arcsec < 60 ? `${Math.round(arcsec)}″` : `${oneDecimal(arcsec / 60)}′`;
}

export const formatArcsec = (arcsec: number | null) => (arcsec === null ? "—" : `${oneDecimal(arcsec)}″`);
export const formatEccentricity = (value: number | null) => (value === null ? "—" : twoDecimals(value));

const solveFailureWords: Record<SolveFailure, string> = {
  CATALOG_MISSING: "the server has no star catalog",
  TOO_FEW_STARS: "too few stars to match against the catalog",
  NOT_SOLVED: "its stars matched no part of the sky in the catalog",
};
const notSolved = (frame: Frame) => `Not plate-solved: ${solveFailureWords[frame.solveFailure ?? "NOT_SOLVED"]}`;

/** The plate solve in a line: where the frame points, or why it is not known. */
export function solveWords(frame: Frame): string {
  const { solution } = frame;
  if (solution) {
    return (
      `Solved: centre RA ${formatRa(solution.ra)}, Dec ${formatDec(solution.dec)}; ` +
      `${solution.pixelScaleArcsec.toFixed(2)}″ per pixel, rotated ${oneDecimal(solution.rotationDeg)}°, ` +
      `field ${twoDecimals(solution.widthDeg)}° × ${twoDecimals(solution.heightDeg)}°`
    );
  }
  return notSolved(frame);
}

const limit = (text: string | null) => (text ? `, over the project's limit of ${text}` : "");

/** Why a frame was rejected for `code`, in words, with its measure and the project's limit when known. */
export function rejectionWords(code: FrameRejection, frame: Frame, grading: GradingLimits): string {
  switch (code) {
    case "NOT_SOLVED":
      return notSolved(frame);
    case "OFF_TARGET": {
      const distance = frame.pointingOffsetArcsec === null ? "too far" : `${formatOffset(frame.pointingOffsetArcsec)}`;
      const target = frame.targetName ? ` from ${frame.targetName}` : " from its target";
      const max = grading?.maxOffsetArcmin != null ? `${oneDecimal(grading.maxOffsetArcmin)}′` : null;
      return `Off target: pointed ${distance}${target}${limit(max)}`;
    }
    case "TOO_FEW_STARS": {
      const found = frame.stars ?? 0;
      const wanted = grading?.minStars != null ? `, the project asks for at least ${grading.minStars}` : "";
      return `Too few stars: ${found} found${wanted}`;
    }
    case "FWHM_TOO_HIGH": {
      const max = grading?.maxFwhmArcsec != null ? formatArcsec(grading.maxFwhmArcsec) : null;
      return `Stars too blurred: FWHM ${formatArcsec(frame.fwhmArcsec)}${limit(max)}`;
    }
    case "ELONGATED": {
      const max = grading?.maxEccentricity != null ? formatEccentricity(grading.maxEccentricity) : null;
      return `Stars elongated (trailing or tracking): eccentricity ${formatEccentricity(frame.eccentricity)}${limit(max)}`;
    }
  }
}

/**
 * When the frame was taken: its DATE-OBS, which FITS writes in UTC, often without a zone (read as
 * UTC, not the browser's zone), as an ISO instant; null when absent or unreadable.
 */
export function takenAt(frame: Frame): string | null {
  const { dateObs } = frame.header;
  if (!dateObs) return null;
  const zoned = /(Z|[+-]\d\d:?\d\d)$/i.test(dateObs) ? dateObs : /T/.test(dateObs) ? `${dateObs}Z` : null;
  const date = zoned ? new Date(zoned) : null;
  return date && !Number.isNaN(date.getTime()) ? date.toISOString() : null;
}
