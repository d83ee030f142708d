import { parseDeclination, parseRightAscension } from "@meridian/rules";
import { separationArcsec, type FrameHeader } from "@meridian/rules/frames";
import type { CardValue, FitsImage } from "./fits-header";

const text = (value: CardValue | undefined): string | null => (typeof value === "string" && value.trim() !== "" ? value.trim().slice(0, 200) : null);
const finite = (value: CardValue | undefined): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null);

/** RA in degrees: a number is degrees (the `RA` card), text is sexagesimal hours (`OBJCTRA`, or a textual `RA`). */
function rightAscension(value: CardValue | undefined): number | null {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 && value < 360 ? value : null;
  if (typeof value !== "string") return null;
  const parsed = parseRightAscension(/^\s*[\d.]+\s*$/.test(value) ? `${value}h` : value);
  return parsed.ok ? parsed.degrees : null;
}

function declination(value: CardValue | undefined): number | null {
  if (typeof value === "number") return Number.isFinite(value) && value >= -90 && value <= 90 ? value : null;
  if (typeof value !== "string") return null;
  const parsed = parseDeclination(value);
  return parsed.ok ? parsed.degrees : null;
}

/** The header cards the contract names, each null when absent or unreadable; RA/DEC first, then OBJCTRA/OBJCTDEC. */
export function frameHeaderOf(image: FitsImage): FrameHeader {
  const { cards } = image.header;
  const fromRaDec = { ra: rightAscension(cards.get("RA")), dec: declination(cards.get("DEC")) };
  const position =
    fromRaDec.ra !== null && fromRaDec.dec !== null ? fromRaDec : { ra: rightAscension(cards.get("OBJCTRA")), dec: declination(cards.get("OBJCTDEC")) };
  const binning = finite(cards.get("XBINNING"));
  return {
    object: text(cards.get("OBJECT")),
    dateObs: text(cards.get("DATE-OBS")),
    exposureSeconds: finite(cards.get("EXPTIME")) ?? finite(cards.get("EXPOSURE")),
    filter: text(cards.get("FILTER")),
    binning: binning !== null && Number.isInteger(binning) && binning > 0 ? binning : null,
    width: image.width,
    height: image.height,
    ra: position.ra !== null && position.dec !== null ? position.ra : null,
    dec: position.ra !== null && position.dec !== null ? position.dec : null,
    imageType: text(cards.get("IMAGETYP")),
  };
}

interface Target {
  name: string;
  ra: number;
  dec: number;
}

/** The observation's target a frame is for: the one named by OBJECT (case-insensitive), else the nearest to the header's position, else the first. */
export function frameTarget(options: { targets: readonly Target[]; header: FrameHeader }): Target | null {
  const { targets, header } = options;
  const named = header.object && targets.find((target) => target.name.toLowerCase() === header.object!.toLowerCase());
  if (named) return named;
  if (header.ra !== null && header.dec !== null) {
    const from = { ra: header.ra, dec: header.dec };
    return [...targets].sort((a, b) => separationArcsec(a, from) - separationArcsec(b, from))[0] ?? null;
  }
  return targets[0] ?? null;
}

const positive = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) && value > 0 ? value : null);

/**
 * The pixel scale a frame is expected to have, in arcseconds, for the solver's hint: the
 * observatory's reported equipment (`pixelScaleArcsec`, at binning 1, times XBINNING), else the
 * header's pixel size and focal length (`XPIXSZ` µm, as binned, and `FOCALLEN` mm). Null when
 * neither says.
 */
export function expectedPixelScale(options: { equipment: unknown; image: FitsImage; header: FrameHeader }): number | null {
  const { equipment, image, header } = options;
  const reported = equipment && typeof equipment === "object" ? positive((equipment as Record<string, unknown>).pixelScaleArcsec) : null;
  if (reported !== null) return reported * (header.binning ?? 1);
  const pixelMicrons = positive(image.header.cards.get("XPIXSZ"));
  const focalMm = positive(image.header.cards.get("FOCALLEN"));
  return pixelMicrons !== null && focalMm !== null ? (206.264806 * pixelMicrons) / focalMm : null;
}
