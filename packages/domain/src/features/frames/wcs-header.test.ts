import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { readFitsImage } from "./fits-header";
import { solutionFromWcs } from "./plate-solve";
import { fitsWithSolution } from "./wcs-header";

const card = (key: string, value: string) => `${key.padEnd(8)}= ${value}`.padEnd(80);
const header = (cards: string[]) => {
  const text = [...cards, "END".padEnd(80)].join("");
  return Buffer.from(text.padEnd(Math.ceil(text.length / 2880) * 2880), "latin1");
};
const imageCards = (bitpix: number, width: number, height: number) => [
  card("BITPIX", String(bitpix).padStart(20)),
  card("NAXIS", "2".padStart(20)),
  card("NAXIS1", String(width).padStart(20)),
  card("NAXIS2", String(height).padStart(20)),
];

const folder = await fs.mkdtemp(path.join(os.tmpdir(), "wcs-header-"));
afterAll(() => fs.rm(folder, { recursive: true, force: true }));
let files = 0;
async function withFile<T>(bytes: Buffer, use: (handle: fs.FileHandle) => Promise<T>) {
  const file = path.join(folder, `${(files += 1)}.fits`);
  await fs.writeFile(file, bytes);
  const handle = await fs.open(file);
  try {
    return await use(handle);
  } finally {
    await handle.close();
  }
}

/** The bytes in chunks of a given size, as object storage streams them. */
const chunked = (bytes: Buffer, size: number) =>
  Readable.from(Array.from({ length: Math.ceil(bytes.length / size) }, (_, index) => bytes.subarray(index * size, (index + 1) * size)));

const solution = { ra: 359.9, dec: -45.25, pixelScaleArcsec: 1.25, rotationDeg: 200, widthDeg: 0, heightDeg: 0 };

describe("the WCS written on download", () => {
  it("goes into the first image extension behind an empty primary, which passes unchanged, and its header grows by a block", async () => {
    const primary = header([card("SIMPLE", "T".padStart(20)), card("BITPIX", "8".padStart(20)), card("NAXIS", "0".padStart(20))]);
    // 35 cards and END fill one block: the solution's twelve need a second.
    const filler = Array.from({ length: 35 - 7 }, (_, index) => card(`KEY${index}`, String(index).padStart(20)));
    const extension = header([
      card("XTENSION", "'IMAGE   '"),
      ...imageCards(16, 30, 20),
      card("PCOUNT", "0".padStart(20)),
      card("GCOUNT", "1".padStart(20)),
      ...filler,
    ]);
    expect(extension.length).toBe(2880);
    const data = Buffer.alloc(2880, 7);
    const original = Buffer.concat([primary, extension, data]);
    const written = await fitsWithSolution({ body: chunked(original, 1000), contentLength: original.length, solution, mirrored: true, observationId: "obn_1" });
    const bytes = Buffer.concat(await written.body.toArray());
    expect(bytes.length).toBe(written.contentLength);
    expect(written.contentLength).toBe(original.length + 2880);
    expect(bytes.subarray(0, 2880)).toEqual(primary);
    expect(bytes.subarray(-2880)).toEqual(data);
    const image = (await withFile(bytes, readFitsImage))!;
    expect(image).toMatchObject({ hdu: 1, width: 30, height: 20 });
    expect([image.header.cards.get("KEY27"), image.header.cards.get("MERIDOBS"), image.header.cards.get("CRPIX1")]).toEqual([27, "obn_1", 15.5]);
    // Read back as the analysis reads solve-field's WCS: the same centre, scale and rotation.
    const read = solutionFromWcs({ wcs: image.header, size: image });
    expect(read.ra).toBeCloseTo(solution.ra, 9);
    expect(read.dec).toBeCloseTo(solution.dec, 9);
    expect(read.pixelScaleArcsec).toBeCloseTo(solution.pixelScaleArcsec, 9);
    expect(read.rotationDeg).toBeCloseTo(solution.rotationDeg, 9);
    // Mirrored, as the solve said: east to the right of north, a CD matrix of positive determinant.
    const cd = ["CD1_1", "CD1_2", "CD2_1", "CD2_2"].map((key) => image.header.cards.get(key) as number);
    expect(cd[0]! * cd[3]! - cd[1]! * cd[2]!).toBeCloseTo((solution.pixelScaleArcsec / 3600) ** 2, 15);
  });

  it("replaces the frame's own WCS cards, keeps the others in their order, and takes the blank cards left before END", async () => {
    const cards = [
      card("SIMPLE", "T".padStart(20)),
      ...imageCards(8, 4, 2),
      card("CROTA2", "12.0".padStart(20)),
      card("OBJECT", "'M31     '"),
      card("CDELT1", "-0.1".padStart(20)),
      "HISTORY taken by hand".padEnd(80),
      ...Array.from({ length: 20 }, () => " ".repeat(80)),
    ];
    const original = Buffer.concat([header(cards), Buffer.alloc(2880)]);
    const written = await fitsWithSolution({
      body: chunked(original, 4096),
      contentLength: original.length,
      solution,
      mirrored: false,
      observationId: "obn_2",
    });
    const bytes = Buffer.concat(await written.body.toArray());
    expect(written.contentLength).toBe(original.length);
    const keys = bytes
      .subarray(0, 2880)
      .toString("latin1")
      .match(/.{80}/g)!
      .map((text) => text.slice(0, 8).trimEnd())
      .filter((key) => key !== "");
    expect(keys).toEqual([
      "SIMPLE",
      "BITPIX",
      "NAXIS",
      "NAXIS1",
      "NAXIS2",
      "OBJECT",
      "HISTORY",
      "CTYPE1",
      "CTYPE2",
      "EQUINOX",
      "CRVAL1",
      "CRVAL2",
      "CRPIX1",
      "CRPIX2",
      "CD1_1",
      "CD1_2",
      "CD2_1",
      "CD2_2",
      "MERIDOBS",
      "END",
    ]);
  });
});
