import type { FrameRejection } from "@meridian/rules/frames";
import type { BadgeTone } from "../components/Badge";
import type { FrameAnalysisView } from "./types";

/** Why a frame was rejected, in words a person reads after "Rejected:". */
const rejectionWords: Record<FrameRejection, string> = {
  NOT_SOLVED: "not plate-solved",
  OFF_TARGET: "pointed off target",
  TOO_FEW_STARS: "too few stars",
  FWHM_TOO_HIGH: "stars too blurred (FWHM)",
  ELONGATED: "stars elongated",
};

/** A frame's state as a badge and, when there is more to say, why. */
export function gradeOf(frame: FrameAnalysisView): { label: string; tone: BadgeTone; why: string | null } {
  if (frame.status === "queued") return { label: "Being analysed", tone: "sky", why: null };
  if (frame.status === "failed") return { label: "Analysis failed", tone: "amber", why: frame.failure };
  if (frame.grade === "accepted") return { label: "Accepted", tone: "emerald", why: null };
  if (frame.grade === "rejected") {
    const words = frame.rejectedFor.map((code) => rejectionWords[code]).join(", ");
    return { label: "Rejected", tone: "red", why: words ? `${words.charAt(0).toUpperCase()}${words.slice(1)}` : null };
  }
  return { label: "Not graded", tone: "slate", why: null };
}

/**
 * An angle on the sky in the unit that reads best: arcseconds under a minute, arcminutes under a
 * degree, degrees above (`12.3″`, `4.5′`, `1.25°`).
 */
export function formatSkyAngle(arcsec: number | null | undefined): string {
  if (arcsec === null || arcsec === undefined || !Number.isFinite(arcsec)) return "—";
  if (arcsec < 60) return `${arcsec.toFixed(1)}″`;
  if (arcsec < 3600) return `${(arcsec / 60).toFixed(1)}′`;
  return `${(arcsec / 3600).toFixed(2)}°`;
}

export const formatFwhm = (arcsec: number | null | undefined) => (arcsec === null || arcsec === undefined ? "—" : `${arcsec.toFixed(1)}″`);

export const formatExposure = (seconds: number | null | undefined) =>
  seconds === null || seconds === undefined ? "—" : `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;

/**
 * The instant a header's DATE-OBS names. FITS writes it in UTC without a zone (`2026-11-20T21:15:00.5`), which a
 * browser would read as its own local time: it is read as UTC here. A day alone is its start; anything else is null.
 */
export function dateObsInstant(text: string | null): string | null {
  const match = text ? /^(\d{4}-\d\d-\d\d)(?:T(\d\d:\d\d(?::\d\d(?:\.\d+)?)?))?(Z|[+-]\d\d:?\d\d)?$/.exec(text.trim()) : null;
  if (!match) return null;
  const [, day, time = "00:00:00", zone = "Z"] = match;
  const instant = new Date(`${day}T${time}${zone}`);
  return Number.isNaN(instant.getTime()) ? null : instant.toISOString();
}
