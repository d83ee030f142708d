import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { readFitsImage } from "@meridian/domain/frames";
import { separationArcsec } from "@meridian/rules/frames";
import { sql } from "drizzle-orm";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { observationWithKey } from "../support/observatory-keys";
import { densestIndexFile, fitsData16, fitsHeader, renderSkyFrame } from "../support/sky-frame";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

// Previews the analysis makes for frames that came without one, and the WCS written into a solved
// frame on download (`?wcs=1`), checked with astrometry.net's own tools (solve-field, wcs-xy2rd).
const run = promisify(execFile);
const CATALOG = "/usr/share/astrometry";
const ADMIN = { email: "previews-admin@example.com", password: "previews admin password" };
const POINTING = { ra: 56.8, dec: 24.05 };
const SCALE = 7;
const ROTATION = 37.5;
/** Wider than a preview may be, and not square: binned 2 × 2 into 800 × 600, its axes told apart. */
const [WIDTH, HEIGHT] = [1600, 1200];
const folders: string[] = [];
let server: TestServer;
let skyFrame: Buffer;
beforeAll(async () => {
  ({ bytes: skyFrame } = await renderSkyFrame({
    ...POINTING,
    scaleArcsec: SCALE,
    rotationDeg: ROTATION,
    fwhmPixels: 3.2,
    width: WIDTH,
    height: HEIGHT,
    indexFile: await densestIndexFile(CATALOG),
    cards: [
      ["OBJECT", "M45"],
      ["EXPTIME", 60],
      ["FILTER", "L"],
      ["CTYPE1", "RA---TAN"],
      ["CRVAL1", 1],
      ["CD1_1", 1],
      ["TELESCOP", "kept as it is"],
      // Where the mount pointed, as cameras write it: the solve searches near it (1 s of CPU) instead of blind (13 to 15 s, 40 s a frame under load).
      ["OBJCTRA", "03 47 12"],
      ["OBJCTDEC", "+24 03 00"],
    ],
  }));
  ({ server } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all", STAR_CATALOG_DIR: CATALOG, FRAME_ANALYSIS_TIMEOUT_SECONDS: "300" }));
}, 120_000);
afterAll(async () => {
  await server?.stop().catch(() => undefined);
  for (const folder of folders) await fs.rm(folder, { recursive: true, force: true });
});

interface FileRead {
  id: string;
  filename: string;
  kind: string;
  contentType: string;
  previewOfId: string | null;
  frame: { status: string; solveFailure: string | null; solution: { ra: number; dec: number } | null } | null;
}

function api() {
  const { must } = jsonApi(() => server);
  const observation = (owner: Account) =>
    observationWithKey(must, {
      owner,
      project: "Previews",
      observation: {
        name: "Pleiades",
        targets: [{ name: "M45", ra: 56.75, dec: 24.1167, exposures: [{ filter: "L", exposureSeconds: 60, count: 1, binning: 1 }] }],
      },
    });
  const upload = async (observationId: string, key: string, filename: string, bytes: Buffer, previewOf?: string) => {
    const query = `filename=${encodeURIComponent(filename)}${previewOf ? `&previewOf=${previewOf}` : ""}`;
    const response = await server.request(`/observations/${observationId}/files?${query}`, {
      method: "POST",
      token: key,
      headers: { "content-type": previewOf ? "image/png" : "application/octet-stream" },
      body: new Uint8Array(bytes),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as FileRead;
  };
  const files = async (owner: Account, observationId: string) =>
    ((await must(`/observations/${observationId}/files`, { token: owner.token })) as { items: FileRead[] }).items;
  const analysed = (owner: Account, observationId: string, fileId: string) =>
    until(`the analysis of ${fileId}`, async () => (await files(owner, observationId)).find((item) => item.id === fileId && item.frame?.status !== "queued"), {
      timeoutMs: 320_000,
      intervalMs: 250,
    });
  const previewsOf = async (owner: Account, observationId: string, fileId: string) =>
    (await files(owner, observationId)).filter((item) => item.previewOfId === fileId);
  const download = async (owner: Account, fileId: string, query = "") => {
    const response = await server.request(`/files/${fileId}/download${query}`, { token: owner.token });
    expect(response.status).toBe(200);
    return Buffer.from(await response.arrayBuffer());
  };
  return { observation, upload, analysed, previewsOf, download };
}

/** A small frame of noise alone: read and measured at once, no star to solve with (TOO_FEW_STARS). */
const noiseFrame = (seed: number) =>
  Buffer.concat([
    fitsHeader([
      ["SIMPLE", true],
      ["BITPIX", 16],
      ["NAXIS", 2],
      ["NAXIS1", 64],
      ["NAXIS2", 48],
      ["BZERO", 32768],
    ]),
    fitsData16(Float64Array.from({ length: 64 * 48 }, (_, index) => 1000 + ((index * 7919 + seed) % 23))),
  ]);

/** The graphile-worker job of an analysis, added once more as a killed worker's would run again after it wrote its result. */
async function runAnalysisJobAgain(fileId: string) {
  const { db } = server.server.runtime.deps;
  const [{ analysis_id: analysisId } = { analysis_id: "" }] = await db.execute<{ analysis_id: string }>(
    sql`select doc->'frame'->>'analysisId' as analysis_id from files where id = ${fileId}`,
  );
  const [again] = await db.execute<{ id: string }>(
    sql`select (graphile_worker.add_job('analyse_frame', ${JSON.stringify({ fileId, analysisId })}::json)).id::text as id`,
  );
  await until("the analysis job run again to be done", async () => {
    const [row] = await db.execute<{ count: number }>(sql`select count(*)::int as count from graphile_worker._private_jobs where id = ${again!.id}::bigint`);
    return row!.count === 0;
  });
}

/** The frame's 16-bit pixel values (BZERO 32768) and where its brightest lies (0-based column and row, rows in FITS order). */
function brightestPixel(frame: Buffer, dataOffset: number) {
  let best = { value: -1, column: 0, row: 0 };
  for (let index = 0; index < WIDTH * HEIGHT; index += 1) {
    const value = frame.readInt16BE(dataOffset + index * 2) + 32768;
    if (value > best.value) best = { value, column: index % WIDTH, row: Math.floor(index / WIDTH) };
  }
  return best;
}

async function tempFile(name: string, bytes: Buffer) {
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-previews-"));
  folders.push(folder);
  const file = path.join(folder, name);
  await fs.writeFile(file, bytes);
  return file;
}

async function fitsImageOf(file: string) {
  const handle = await fs.open(file);
  try {
    return (await readFitsImage(handle))!;
  } finally {
    await handle.close();
  }
}

/** astrometry.net's reading of a WCS: the sky position of a pixel (FITS pixel coordinates, 1-based). */
async function skyAt(wcsFile: string, x: number, y: number) {
  const { stdout } = await run("wcs-xy2rd", ["-w", wcsFile, "-x", String(x), "-y", String(y)]);
  const match = /RA,Dec \(([-\d.e+]+), ([-\d.e+]+)\)/.exec(stdout);
  if (!match) throw new Error(`wcs-xy2rd said: ${stdout}`);
  return { ra: Number(match[1]), dec: Number(match[2]) };
}

describe("frame previews and the WCS download", () => {
  let owner: Account;
  let observationId: string;
  let key: string;
  let solved: FileRead;
  let flipped: { bytes: Buffer; file: FileRead };
  beforeAll(async () => {
    owner = await createAccount(server);
    const made = await api().observation(owner);
    [observationId, key] = [made.observation.id, made.key];
    const { upload, analysed } = api();
    // The same frame read out bottom-up, as some cameras write their rows: a mirror image of the sky (east right of north).
    const bytes = Buffer.from(skyFrame);
    const { dataOffset } = (await fitsImageOf(await tempFile("sky.fits", skyFrame))).header;
    for (let row = 0; row < HEIGHT; row += 1)
      skyFrame.copy(bytes, dataOffset + (HEIGHT - 1 - row) * WIDTH * 2, dataOffset + row * WIDTH * 2, dataOffset + (row + 1) * WIDTH * 2);
    const [frame, mirrored] = [await upload(observationId, key, "m45_L_001.fits", skyFrame), await upload(observationId, key, "flipped.fits", bytes)];
    solved = await analysed(owner, observationId, frame.id);
    flipped = { bytes, file: await analysed(owner, observationId, mirrored.id) };
    for (const each of [solved, flipped.file]) expect(each.frame).toMatchObject({ status: "analysed", solveFailure: null });
  }, 400_000);

  it("makes a PNG preview of a solved frame, at most 1024 px, brighter where its stars are, and once", { timeout: 120_000 }, async () => {
    const { previewsOf, download } = api();
    const [preview, ...more] = await previewsOf(owner, observationId, solved.id);
    expect(more).toEqual([]);
    expect(preview).toMatchObject({ kind: "preview", previewOfId: solved.id, contentType: "image/png", filename: "m45_L_001.preview.png", frame: null });
    const bytes = await download(owner, preview!.id);
    expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const png = PNG.sync.read(bytes);
    expect([png.width, png.height]).toEqual([WIDTH / 2, HEIGHT / 2]);
    const grey = Array.from({ length: png.width * png.height }, (_, index) => png.data[index * 4]!);
    const sorted = [...grey].sort((a, b) => a - b);
    // The sky dark, the stars bright: not a blank or a flat picture.
    expect(sorted[Math.floor(sorted.length / 2)]).toBeLessThan(80);
    expect(sorted.at(-1)).toBeGreaterThanOrEqual(250);
    // The frame's brightest star is bright in the preview, where a viewer of FITS shows it (row 1 at the bottom), binned 2 × 2.
    const star = brightestPixel(skyFrame, (await fitsImageOf(await tempFile("sky.fits", skyFrame))).header.dataOffset);
    const [column, row] = [Math.floor(star.column / 2), png.height - 1 - Math.floor(star.row / 2)];
    expect(grey[row * png.width + column]).toBeGreaterThanOrEqual(200);

    // Its analysis job run again after its result was written (a worker killed before it said so): no second preview.
    await runAnalysisJobAgain(solved.id);
    expect((await previewsOf(owner, observationId, solved.id)).map((each) => each.id)).toEqual([preview!.id]);
  });

  it(
    "makes one for an unsolved frame, none for a frame uploaded with its own or an unreadable one, and none more when analysed again",
    { timeout: 120_000 },
    async () => {
      const { upload, analysed, previewsOf } = api();
      // A plugin uploads a frame's preview after the frame, while its analysis is under way. These frames take milliseconds, so
      // their analyses' results wait behind a lock of the project's row (as behind a change of its grading) until both are in.
      const { db } = server.server.runtime.deps;
      const { bare, withOwn, own, truncated } = await db.transaction(async (tx) => {
        await tx.execute(sql`select p.id from projects p join observations o on o.doc->>'projectId' = p.id where o.id = ${observationId} for update of p`);
        const frame = await upload(observationId, key, "noise-with-preview.fits", noiseFrame(2));
        return {
          withOwn: frame,
          own: await upload(observationId, key, "noise-with-preview.png", Buffer.from("a preview image"), frame.id),
          bare: await upload(observationId, key, "noise.fit", noiseFrame(1)),
          truncated: await upload(observationId, key, "truncated.fits", noiseFrame(3).subarray(0, 2880 + 100)),
        };
      });
      expect((await analysed(owner, observationId, bare.id)).frame).toMatchObject({ status: "analysed", solveFailure: "TOO_FEW_STARS" });
      expect((await analysed(owner, observationId, withOwn.id)).frame).toMatchObject({ status: "analysed" });
      expect((await analysed(owner, observationId, truncated.id)).frame).toMatchObject({ status: "failed" });
      const [made, ...more] = await previewsOf(owner, observationId, bare.id);
      expect(more).toEqual([]);
      expect(made).toMatchObject({ kind: "preview", filename: "noise.preview.png" });
      expect((await previewsOf(owner, observationId, withOwn.id)).map((each) => each.id)).toEqual([own.id]);
      expect(await previewsOf(owner, observationId, truncated.id)).toEqual([]);

      // Analysed again (POST /files/{id}/analyse): the frame has its preview, so none more is made.
      const again = await server.request(`/files/${bare.id}/analyse`, { method: "POST", token: owner.token });
      expect(again.status).toBe(202);
      expect((await analysed(owner, observationId, bare.id)).frame).toMatchObject({ status: "analysed" });
      await runAnalysisJobAgain(bare.id);
      expect((await previewsOf(owner, observationId, bare.id)).map((each) => each.id)).toEqual([made!.id]);
    },
  );

  it("writes the solution into the downloaded FITS (?wcs=1) as astrometry.net reads it, every data byte unchanged", { timeout: 200_000 }, async () => {
    const { download } = api();
    const original = await fitsImageOf(await tempFile("original.fits", skyFrame));
    const withWcs = await download(owner, solved.id, "?wcs=1");
    const written = await tempFile("with-wcs.fits", withWcs);
    const image = await fitsImageOf(written);
    // Buffer's own comparison: toEqual walks the 3.8 MB byte by byte through vitest's deep equality (45 s at a load of 19).
    expect(withWcs.subarray(image.header.dataOffset).equals(skyFrame.subarray(original.header.dataOffset)), "the data bytes are the frame's").toBe(true);
    const { cards } = image.header;
    const solution = solved.frame!.solution!;
    const named = ["CTYPE1", "CTYPE2", "EQUINOX", "CRPIX1", "CRPIX2", "MERIDOBS", "OBJECT", "EXPTIME", "TELESCOP"];
    expect(Object.fromEntries(named.map((name) => [name, cards.get(name)]))).toEqual({
      CTYPE1: "RA---TAN",
      CTYPE2: "DEC--TAN",
      EQUINOX: 2000,
      CRPIX1: (WIDTH + 1) / 2,
      CRPIX2: (HEIGHT + 1) / 2,
      MERIDOBS: observationId,
      OBJECT: "M45",
      EXPTIME: 60,
      TELESCOP: "kept as it is",
    });
    expect([cards.get("CRVAL1"), cards.get("CRVAL2")]).toEqual([solution.ra, solution.dec]);
    for (const name of ["CD1_1", "CD1_2", "CD2_1", "CD2_2"]) expect(typeof cards.get(name)).toBe("number");
    // The frame's own WCS cards (CTYPE1, CRVAL1, CD1_1 above) were replaced, not repeated.
    const keys = withWcs
      .subarray(0, image.header.dataOffset)
      .toString("latin1")
      .match(/.{80}/g)!
      .map((card) => card.slice(0, 8).trimEnd());
    expect(["CTYPE1", "CRVAL1", "CD1_1"].map((name) => keys.filter((each) => each === name).length)).toEqual([1, 1, 1]);

    // astrometry.net reads the centre where the solution says, and the corners where its own solve of the frame puts them.
    expect(separationArcsec(await skyAt(written, (WIDTH + 1) / 2, (HEIGHT + 1) / 2), solution)).toBeLessThan(1);
    const folder = path.dirname(written);
    await fs.writeFile(path.join(folder, "astrometry.cfg"), `add_path ${CATALOG}\nautoindex\n`);
    await run(
      "solve-field",
      [
        ...["--config", path.join(folder, "astrometry.cfg")],
        ...["--dir", folder, "--temp-dir", folder, "--out", "own", "--overwrite", "--no-plots", "--no-tweak", "--crpix-center"],
        ...["--new-fits", "none", "--index-xyls", "none", "--rdls", "none", "--match", "none", "--corr", "none", "--wcs", path.join(folder, "own.wcs")],
        ...["--ra", String(POINTING.ra), "--dec", String(POINTING.dec), "--radius", "2"],
        ...["--scale-units", "arcsecperpix", "--scale-low", String(SCALE * 0.9), "--scale-high", String(SCALE * 1.1)],
        await tempFile("own.fits", skyFrame),
      ],
      { cwd: folder, timeout: 180_000 },
    );
    const corners = [
      [1, 1],
      [WIDTH, 1],
      [1, HEIGHT],
    ] as const;
    for (const [x, y] of corners) expect(separationArcsec(await skyAt(written, x, y), await skyAt(path.join(folder, "own.wcs"), x, y))).toBeLessThan(3);

    // The mirrored frame's WCS has its parity: its pixel (x, y) is the sky of the original's (x, HEIGHT + 1 − y).
    const mirrored = await tempFile("flipped-with-wcs.fits", await download(owner, flipped.file.id, "?wcs=1"));
    const mirroredImage = await fitsImageOf(mirrored);
    const mirroredData = (await fs.readFile(mirrored)).subarray(mirroredImage.header.dataOffset);
    expect(mirroredData.equals(flipped.bytes.subarray(original.header.dataOffset)), "the data bytes are the mirrored frame's").toBe(true);
    for (const [x, y] of corners)
      expect(separationArcsec(await skyAt(mirrored, x, y), await skyAt(path.join(folder, "own.wcs"), x, HEIGHT + 1 - y))).toBeLessThan(3);
  });

  it("refuses ?wcs=1 for an unsolved frame or a file that is not a frame (409 NOT_SOLVED), as the plain download refuses others", async () => {
    const { upload, analysed, previewsOf } = api();
    const unsolved = await upload(observationId, key, "unsolved.fits", noiseFrame(4));
    expect((await analysed(owner, observationId, unsolved.id)).frame).toMatchObject({ solveFailure: "TOO_FEW_STARS" });
    const [preview] = await previewsOf(owner, observationId, solved.id);
    for (const fileId of [unsolved.id, preview!.id])
      await expectProblem(await server.request(`/files/${fileId}/download?wcs=1`, { token: owner.token }), 409, "NOT_SOLVED");
    await expectProblem(await server.request(`/files/${solved.id}/download?wcs=yes`, { token: owner.token }), 400, "VALIDATION_FAILED");
    const stranger = await createAccount(server);
    await expectProblem(await server.request(`/files/${solved.id}/download?wcs=1`, { token: stranger.token }), 404, "NOT_FOUND");
    await expectProblem(await server.request(`/files/${solved.id}/download?wcs=1`), 401, "UNAUTHENTICATED");
  });
});
