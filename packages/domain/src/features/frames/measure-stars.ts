import fs from "node:fs/promises";
import path from "node:path";
import { runTool } from "./run-tool";

/** The columns asked of source-extractor, in this order. */
const COLUMNS = ["EXT_NUMBER", "FWHM_IMAGE", "FLUX_RADIUS", "ELONGATION", "BACKGROUND", "FLAGS"] as const;
/** Debian's convolution filter for detection (a 3×3 pyramid); without it, detection runs unfiltered. */
const DEFAULT_FILTER = "/usr/share/source-extractor/default.conv";

export interface StarMeasures {
  /** Sources detected. */
  stars: number;
  /** Medians over the clean sources (no flags), in pixels: null when there are none. */
  fwhmPixels: number | null;
  hfrPixels: number | null;
  eccentricity: number | null;
  backgroundAdu: number | null;
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Finds and measures the frame's stars with source-extractor (Debian's `source-extractor`):
 * detections at 5 σ over 5 pixels, each with its FWHM, its half-flux radius (FLUX_RADIUS at
 * PHOT_FLUXFRAC 0.5: the HFR that NINA grades by), elongation (a/b, turned into eccentricity
 * √(1 − b²/a²)) and local background. Medians are over unflagged detections (not blended,
 * saturated or cut by the edge), or over all when none is clean.
 */
export async function measureStars(options: { framePath: string; folder: string; cpuSeconds: number; signal: AbortSignal }): Promise<StarMeasures> {
  const { folder } = options;
  const parameters = path.join(folder, "measure.param");
  const catalog = path.join(folder, "stars.cat");
  await fs.writeFile(parameters, `${COLUMNS.join("\n")}\n`);
  const filter = await fs
    .access(DEFAULT_FILTER)
    .then(() => ["-FILTER", "Y", "-FILTER_NAME", DEFAULT_FILTER])
    .catch(() => ["-FILTER", "N"]);
  await runTool({
    command: "source-extractor",
    args: [
      options.framePath,
      "-c",
      "/dev/null",
      "-PARAMETERS_NAME",
      parameters,
      "-CATALOG_NAME",
      catalog,
      "-CATALOG_TYPE",
      "ASCII",
      ...filter,
      "-DETECT_THRESH",
      "5",
      "-ANALYSIS_THRESH",
      "5",
      "-DETECT_MINAREA",
      "5",
      "-PHOT_FLUXFRAC",
      "0.5",
      "-CHECKIMAGE_TYPE",
      "NONE",
      "-VERBOSE_TYPE",
      "QUIET",
      "-NTHREADS",
      "1",
    ],
    cwd: folder,
    cpuSeconds: options.cpuSeconds,
    signal: options.signal,
  });
  const rows = (await fs.readFile(catalog, "utf8"))
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.startsWith("#"))
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter((row) => row.length === COLUMNS.length && row.every(Number.isFinite));
  // A multi-extension file: the first image's sources only.
  const firstExtension = Math.min(...rows.map((row) => row[0]!));
  const sources = rows.filter((row) => row[0] === firstExtension);
  const clean = sources.filter((row) => row[5] === 0 && row[1]! > 0 && row[2]! > 0);
  const measured = clean.length > 0 ? clean : sources.filter((row) => row[1]! > 0 && row[2]! > 0);
  return {
    stars: sources.length,
    fwhmPixels: median(measured.map((row) => row[1]!)),
    hfrPixels: median(measured.map((row) => row[2]!)),
    eccentricity: median(measured.map((row) => Math.sqrt(Math.max(0, 1 - 1 / row[3]! ** 2)))),
    backgroundAdu: median(sources.map((row) => row[4]!)),
  };
}
