import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { readHeaderCards } from "./fits";

/** The command that reads stars out of an index file: astrometry.net's own, from Debian's `astrometry.net`. */
const QUERY_STARKD = "query-starkd";
/** What a query may print before it is stopped: a few hundred thousand stars, far more than a field holds. */
const QUERY_OUTPUT_BYTES = 16 * 1024 * 1024;
const QUERY_TIMEOUT_MS = 30_000;
/** An index file's primary header is read this far at most, looking for its END. */
const INDEX_HEADER_BYTES = 2880 * 40;
const RADIANS_TO_DEGREES = 180 / Math.PI;

/** One astrometry.net index: its id and the sky size of its quads, and the file or files (healpix tiles) that hold it. */
export interface StarIndex {
  indexId: number;
  /** Its quads' size, degrees (the header's SCALE_L and SCALE_U, radians there). */
  quadLowDeg: number;
  quadHighDeg: number;
  files: string[];
}

export interface CatalogStar {
  ra: number;
  dec: number;
  magnitude: number;
}

/** Whether query-starkd runs at all: without arguments it prints its usage and exits 1, and only a missing program fails to start. */
function installed(command: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(command, [], { timeout: QUERY_TIMEOUT_MS }, (error) => resolve((error as NodeJS.ErrnoException | null)?.code !== "ENOENT"));
  });
}

async function readIndexHeader(file: string) {
  const handle = await fs.open(file);
  try {
    const buffer = Buffer.alloc(INDEX_HEADER_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return readHeaderCards(buffer.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

/**
 * The astrometry.net indexes of a star catalog folder (STAR_CATALOG_DIR), densest first, or why
 * there are none to draw from: the folder missing or without index files, or `query-starkd` not
 * installed. Each `*.fits` file whose header names INDEXID, SCALE_L and SCALE_U counts; the
 * tiles of one index (Debian's narrower 07–09 packages split each into healpix tiles) are kept
 * together.
 */
export async function openStarCatalog(dir: string): Promise<{ indexes: StarIndex[] } | { missing: string }> {
  const names = await fs.readdir(dir).catch(() => null);
  if (names === null) return { missing: `the star catalog folder ${dir} does not exist` };
  const byId = new Map<number, StarIndex>();
  for (const name of names.filter((entry) => entry.endsWith(".fits")).sort()) {
    const file = path.join(dir, name);
    const cards = await readIndexHeader(file).catch(() => null);
    const [indexId, low, high] = [cards?.get("INDEXID"), cards?.get("SCALE_L"), cards?.get("SCALE_U")];
    if (typeof indexId !== "number" || typeof low !== "number" || typeof high !== "number") continue;
    const index = byId.get(indexId) ?? { indexId, quadLowDeg: low * RADIANS_TO_DEGREES, quadHighDeg: high * RADIANS_TO_DEGREES, files: [] };
    index.files.push(file);
    byId.set(indexId, index);
  }
  if (byId.size === 0) return { missing: `the star catalog folder ${dir} holds no astrometry.net index files` };
  if (!(await installed(QUERY_STARKD))) return { missing: `${QUERY_STARKD} (Debian's astrometry.net) is not installed` };
  return { indexes: [...byId.values()].sort((a, b) => a.quadLowDeg - b.quadLowDeg) };
}

/**
 * The index to draw a field of `fieldDeg` (its long side) from: the densest whose quads are at
 * least a tenth of the field, astrometry.net's advice for the indexes that solve it (quads of 10 %
 * to 100 % of the field). Denser ones would only add stars by the thousand to a wide field; a field
 * narrower than every index's quads gets the densest there is.
 */
export function indexForField(indexes: readonly StarIndex[], fieldDeg: number): StarIndex {
  return indexes.find((index) => index.quadLowDeg >= fieldDeg / 10) ?? indexes[indexes.length - 1]!;
}

function query(file: string, around: { ra: number; dec: number; radiusDeg: number }): Promise<string> {
  const args = ["-r", String(around.ra), "-d", String(around.dec), "-R", String(around.radiusDeg), "-T", file];
  return new Promise((resolve, reject) => {
    // No shell: the arguments are ours and go to the program as they are.
    execFile(QUERY_STARKD, args, { maxBuffer: QUERY_OUTPUT_BYTES, timeout: QUERY_TIMEOUT_MS, encoding: "utf8" }, (error, stdout) =>
      error ? reject(new Error(`${QUERY_STARKD} failed: ${error.message.split("\n")[0]}`)) : resolve(stdout),
    );
  });
}

/** Stars as query-starkd prints them: a `# RA, Dec, MAG_VT…` line naming the columns, then one comma-separated line per star. */
function parseStars(output: string): CatalogStar[] {
  const lines = output.split("\n");
  const columns = (lines.find((line) => line.startsWith("#")) ?? "# RA, Dec")
    .slice(1)
    .split(",")
    .map((name) => name.trim().toUpperCase());
  const preferred = ["MAG_VT", "MAG_V", "MAG"].map((name) => columns.indexOf(name)).find((at) => at >= 2);
  const magnitudeAt = preferred ?? columns.findIndex((name, at) => at >= 2 && name.startsWith("MAG"));
  return lines
    .filter((line) => /^-?\d/.test(line.trim()))
    .map((line) => line.split(",").map((part) => Number(part.trim())))
    .filter((values) => Number.isFinite(values[0]) && Number.isFinite(values[1]))
    .map((values) => {
      const magnitude = magnitudeAt >= 2 ? values[magnitudeAt] : undefined;
      return { ra: values[0]!, dec: values[1]!, magnitude: magnitude !== undefined && Number.isFinite(magnitude) ? magnitude : 11 };
    });
}

/** The index's stars within `radiusDeg` of a point (RA, Dec and V magnitude), from each of its files; a star two tiles share counts once. */
export async function catalogStars(options: { files: readonly string[]; ra: number; dec: number; radiusDeg: number }): Promise<CatalogStar[]> {
  const seen = new Set<string>();
  const stars: CatalogStar[] = [];
  for (const file of options.files) {
    for (const star of parseStars(await query(file, options))) {
      const key = `${star.ra.toFixed(5)},${star.dec.toFixed(5)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      stars.push(star);
    }
  }
  return stars;
}
