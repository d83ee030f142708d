import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { frameHeaderOf, frameTarget } from "./frame-header";
import { FrameUnreadable, parseCardValue, readFitsImage, startsAsFits } from "./fits-header";
import { solutionFromWcs } from "./plate-solve";

const card = (key: string, value: string) => `${key.padEnd(8)}= ${value}`.padEnd(80);
const header = (cards: string[]) => {
  const text = [...cards, "END".padEnd(80)].join("");
  return Buffer.from(text.padEnd(Math.ceil(text.length / 2880) * 2880), "latin1");
};
const image = (width: number, height: number, more: string[] = []) =>
  header([
    card("SIMPLE", "T".padStart(20)),
    card("BITPIX", "16".padStart(20)),
    card("NAXIS", "2".padStart(20)),
    card("NAXIS1", String(width).padStart(20)),
    card("NAXIS2", String(height).padStart(20)),
    ...more,
  ]);

const folder = await fs.mkdtemp(path.join(os.tmpdir(), "fits-header-"));
afterAll(() => fs.rm(folder, { recursive: true, force: true }));
let files = 0;
async function read(bytes: Buffer) {
  const file = path.join(folder, `${(files += 1)}.fits`);
  await fs.writeFile(file, bytes);
  const handle = await fs.open(file);
  try {
    return await readFitsImage(handle);
  } finally {
    await handle.close();
  }
}

describe("FITS header cards", () => {
  it("reads strings with doubled quotes, logicals, integers, reals with a D exponent, and comments", () => {
    expect(parseCardValue(" 'O''Brien '           / the observer")).toBe("O'Brien");
    expect(parseCardValue("                    T / simple")).toBe(true);
    expect(parseCardValue("                  -32")).toBe(-32);
    expect(parseCardValue("             1.5D2 / exponent")).toBe(150);
    expect(parseCardValue("                      / no value")).toBeNull();
    expect(() => parseCardValue(" 'never closed")).toThrow(FrameUnreadable);
  });

  it("knows FITS by its first card, not its name", () => {
    expect(startsAsFits(image(1, 1))).toBe(true);
    expect(startsAsFits(Buffer.from("SIMPLE  =                    F".padEnd(80)))).toBe(false);
    expect(startsAsFits(Buffer.from("PK\u0003\u0004 a zip file"))).toBe(false);
  });
});

describe("the frame's image", () => {
  it("is the primary HDU's 2-D image, or the first IMAGE extension's, and nothing for other FITS files", async () => {
    const data = Buffer.alloc(2880 * 2);
    expect(await read(Buffer.concat([image(40, 30), data]))).toMatchObject({ hdu: 0, width: 40, height: 30, bitpix: 16 });
    const primary = header([card("SIMPLE", "T".padStart(20)), card("BITPIX", "8".padStart(20)), card("NAXIS", "0".padStart(20))]);
    const extension = header([
      card("XTENSION", "'IMAGE   '"),
      card("BITPIX", "-32".padStart(20)),
      card("NAXIS", "2".padStart(20)),
      card("NAXIS1", "10".padStart(20)),
      card("NAXIS2", "10".padStart(20)),
    ]);
    expect(await read(Buffer.concat([primary, extension, Buffer.alloc(2880)]))).toMatchObject({ hdu: 1, width: 10, bitpix: -32 });
    expect(await read(primary)).toBeNull();
    const cube = header([card("SIMPLE", "T".padStart(20)), card("BITPIX", "8".padStart(20)), card("NAXIS", "3".padStart(20))]);
    expect(await read(cube)).toBeNull();
  });

  it("fails with the reason for what cannot be read", async () => {
    await expect(read(image(40, 30).subarray(0, 1000))).rejects.toThrow(/truncated/);
    await expect(read(image(1000, 1000))).rejects.toThrow(/data is shorter than the header says/);
    await expect(read(header([card("SIMPLE", "T".padStart(20)), card("BITPIX", "16".padStart(20))]))).rejects.toThrow(/NAXIS is missing/);
    await expect(read(image(2, 2, [card("BSCALE", "0".padStart(20))]))).rejects.toThrow(/BSCALE is not a usable number/);
  });
});

describe("the header's description of a frame", () => {
  it("takes RA/DEC in degrees, else OBJCTRA/OBJCTDEC sexagesimal, and EXPOSURE when EXPTIME is absent", async () => {
    const withObjct = await read(
      Buffer.concat([
        image(4, 4, [
          card("OBJCTRA", "'08 40 24.0'"),
          card("OBJCTDEC", "'-19 40 12'"),
          card("EXPOSURE", "30.0".padStart(20)),
          card("XBINNING", "2".padStart(20)),
        ]),
        Buffer.alloc(2880),
      ]),
    );
    const described = frameHeaderOf(withObjct!);
    expect(described).toMatchObject({ exposureSeconds: 30, binning: 2, object: null, filter: null });
    expect(described.ra).toBeCloseTo(130.1, 6);
    expect(described.dec).toBeCloseTo(-19.67, 6);
    const withRaDec = await read(
      Buffer.concat([image(4, 4, [card("RA", "130.5".padStart(20)), card("DEC", "-19.5".padStart(20)), card("OBJCTRA", "'01 00 00'")]), Buffer.alloc(2880)]),
    );
    expect(frameHeaderOf(withRaDec!)).toMatchObject({ ra: 130.5, dec: -19.5 });
  });

  it("picks the target OBJECT names, else the nearest, else the first", () => {
    const targets = [
      { name: "Deneb", ra: 310.36, dec: 45.28 },
      { name: "M45", ra: 56.75, dec: 24.12 },
    ];
    const base = { dateObs: null, exposureSeconds: null, filter: null, binning: null, width: 1, height: 1, imageType: null };
    expect(frameTarget({ targets, header: { ...base, object: "m45", ra: 310, dec: 45 } })?.name).toBe("M45");
    expect(frameTarget({ targets, header: { ...base, object: "Pleiades", ra: 57, dec: 24 } })?.name).toBe("M45");
    expect(frameTarget({ targets, header: { ...base, object: null, ra: null, dec: null } })?.name).toBe("Deneb");
  });
});

describe("a solution from a TAN WCS", () => {
  it("gives the centre, scale, field and rotation east of north", () => {
    const rotation = (30 * Math.PI) / 180;
    const scale = 2 / 3600;
    const cards = new Map<string, number>([
      ["CRVAL1", 10],
      ["CRVAL2", 20],
      ["CRPIX1", 50.5],
      ["CRPIX2", 25.5],
      // +x toward position angle 30° − 90°, +y toward 30°: east is left of north.
      ["CD1_1", -scale * Math.cos(rotation)],
      ["CD1_2", scale * Math.sin(rotation)],
      ["CD2_1", scale * Math.sin(rotation)],
      ["CD2_2", scale * Math.cos(rotation)],
    ]);
    const solution = solutionFromWcs({ wcs: { cards, cardCount: cards.size, dataOffset: 2880 }, size: { width: 100, height: 50 } });
    expect(solution.ra).toBeCloseTo(10, 9);
    expect(solution.dec).toBeCloseTo(20, 9);
    expect(solution.pixelScaleArcsec).toBeCloseTo(2, 9);
    expect(solution.rotationDeg).toBeCloseTo(30, 9);
    expect(solution.widthDeg).toBeCloseTo(100 * scale, 9);
    expect(solution.heightDeg).toBeCloseTo(50 * scale, 9);
  });
});
