import fs from "node:fs/promises";
import path from "node:path";
import type { FrameSolution } from "@meridian/rules/frames";
import { readHeaderAt, type FitsHeader } from "./fits-header";
import { runTool } from "./run-tool";

const rad = Math.PI / 180;

/** An astrometry.net catalog is there when its folder holds at least one file (the contract's "missing or empty"). */
export async function starCatalogPresent(dir: string): Promise<boolean> {
  return fs
    .readdir(dir)
    .then((entries) => entries.length > 0)
    .catch(() => false);
}

const cardNumber = (header: FitsHeader, key: string, fallback?: number): number => {
  const value = header.cards.get(key);
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (fallback !== undefined) return fallback;
  throw new Error(`the solution's WCS has no ${key}`);
};

/**
 * The solution from solve-field's WCS (a TAN projection): the sky position of the frame's centre
 * pixel, the pixel scale (√|det CD|), the field's size and the rotation as astrometry.net states it,
 * "up is rotationDeg east of north", where up is the image's +y axis (its rows in FITS order).
 */
export function solutionFromWcs(options: { wcs: FitsHeader; size: { width: number; height: number } }): FrameSolution {
  const { wcs: header, size } = options;
  const [crval1, crval2] = [cardNumber(header, "CRVAL1"), cardNumber(header, "CRVAL2")];
  const [crpix1, crpix2] = [cardNumber(header, "CRPIX1"), cardNumber(header, "CRPIX2")];
  const cd = [cardNumber(header, "CD1_1"), cardNumber(header, "CD1_2", 0), cardNumber(header, "CD2_1", 0), cardNumber(header, "CD2_2")] as const;
  // Intermediate coordinates (degrees, x toward the east) of the centre pixel, then deprojected.
  const [dx, dy] = [(size.width + 1) / 2 - crpix1, (size.height + 1) / 2 - crpix2];
  const xi = (cd[0] * dx + cd[1] * dy) * rad;
  const eta = (cd[2] * dx + cd[3] * dy) * rad;
  const [ra0, dec0] = [crval1 * rad, crval2 * rad];
  const denominator = Math.cos(dec0) - eta * Math.sin(dec0);
  const ra = ((((ra0 + Math.atan2(xi, denominator)) / rad) % 360) + 360) % 360;
  const dec = Math.atan2(Math.sin(dec0) + eta * Math.cos(dec0), Math.hypot(xi, denominator)) / rad;
  const scaleDeg = Math.sqrt(Math.abs(cd[0] * cd[3] - cd[1] * cd[2]));
  const rotation = (((Math.atan2(cd[1], cd[3]) / rad) % 360) + 360) % 360;
  return {
    ra,
    dec,
    pixelScaleArcsec: scaleDeg * 3600,
    rotationDeg: rotation,
    widthDeg: size.width * scaleDeg,
    heightDeg: size.height * scaleDeg,
  };
}

/** Whether a WCS has east to the right when north is up: its CD matrix's determinant is positive (the sky's own is negative). */
function mirroredWcs(header: FitsHeader): boolean {
  const cd = [cardNumber(header, "CD1_1"), cardNumber(header, "CD1_2", 0), cardNumber(header, "CD2_1", 0), cardNumber(header, "CD2_2")] as const;
  return cd[0] * cd[3] - cd[1] * cd[2] > 0;
}

export interface SolveHints {
  ra: number | null;
  dec: number | null;
  pixelScaleArcsec: number | null;
}

/**
 * A plate solve with astrometry.net's `solve-field` against the index files of `catalogDir`:
 * blind, narrowed by the hints when there are some (position within 5°, scale within ±20 %).
 * Answers null when it found no solution, else the solution and whether the frame is mirrored.
 */
export async function plateSolve(options: {
  framePath: string;
  hdu: number;
  size: { width: number; height: number };
  folder: string;
  catalogDir: string;
  hints: SolveHints;
  cpuSeconds: number;
  signal: AbortSignal;
}): Promise<{ solution: FrameSolution; mirrored: boolean } | null> {
  const { folder, hints, size } = options;
  const cpuSeconds = Math.max(1, Math.floor(options.cpuSeconds));
  const config = path.join(folder, "astrometry.cfg");
  await fs.writeFile(config, `cpulimit ${cpuSeconds}\nadd_path ${options.catalogDir}\nautoindex\n`);
  const wcs = path.join(folder, "solution.wcs");
  const hinted = [
    ...(hints.pixelScaleArcsec !== null
      ? ["--scale-units", "arcsecperpix", "--scale-low", String(hints.pixelScaleArcsec * 0.8), "--scale-high", String(hints.pixelScaleArcsec * 1.2)]
      : []),
    ...(hints.ra !== null && hints.dec !== null ? ["--ra", String(hints.ra), "--dec", String(hints.dec), "--radius", "5"] : []),
  ];
  await runTool({
    command: "solve-field",
    args: [
      "--config",
      config,
      "--dir",
      folder,
      "--temp-dir",
      folder,
      "--out",
      "solve",
      "--overwrite",
      "--no-plots",
      // The header reader has found a FITS image: without this, solve-field has Python's image2pnm find out by converting the
      // whole frame to a PPM beside an uncompressed copy (tens of MiB written, 0.3 to 0.5 s of CPU and 100 MiB for a 32 MiB frame).
      "--fits-image",
      "--no-tweak",
      "--crpix-center",
      "--cpulimit",
      String(cpuSeconds),
      "--new-fits",
      "none",
      "--index-xyls",
      "none",
      "--rdls",
      "none",
      "--match",
      "none",
      "--corr",
      "none",
      "--wcs",
      wcs,
      ...(Math.max(size.width, size.height) > 2048 ? ["--downsample", "2"] : []),
      ...(options.hdu > 0 ? ["--extension", String(options.hdu)] : []),
      ...hinted,
      options.framePath,
    ],
    cwd: folder,
    cpuSeconds,
    signal: options.signal,
  });
  const handle = await fs.open(wcs).catch(() => null);
  if (!handle) return null;
  try {
    const { size: bytes } = await handle.stat();
    const header = await readHeaderAt({ handle, offset: 0, size: bytes });
    return { solution: solutionFromWcs({ wcs: header, size }), mirrored: mirroredWcs(header) };
  } finally {
    await handle.close();
  }
}
