import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { separationArcsec, type FrameAnalysis } from "@meridian/rules/frames";
import { ObservatorySimulator, type SkyFrameUpload, type SkySettings } from "@meridian/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { observationWithKey } from "../support/observatory-keys";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

// The simulator's frames through the server's real analysis: source-extractor and solve-field
// against Debian's Tycho-2 index files (`.ci/run` and scripts/start.sh install them).
const CATALOG = "/usr/share/astrometry";
const ADMIN = { email: "simulator-sky-admin@example.com", password: "simulator sky admin password" };
const M45 = { name: "M45", ra: 56.75, dec: 24.1167 };
/** A field without the Pleiades' bright stars, which shine through thin cloud. */
const M31 = { name: "M 31", ra: 10.6847, dec: 41.269 };
/** The simulator's optics unless told otherwise: 7.4 µm pixels at 500 mm. */
const DEFAULT_SCALE = (206_264.806 * 7.4) / 500_000;

let server: TestServer;
const closers: Array<() => Promise<unknown>> = [];
beforeAll(async () => {
  ({ server } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all", STAR_CATALOG_DIR: CATALOG, FRAME_ANALYSIS_TIMEOUT_SECONDS: "300" }));
});
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
  await server?.stop();
});
const { must } = jsonApi(() => server);

type Frame = Omit<FrameAnalysis, "analysedAt"> & { analysedAt: string | null };
interface FileRead {
  id: string;
  filename: string;
  kind: string;
  previewOfId: string | null;
  frame: Frame | null;
}

/**
 * An observation of `target` (one exposure line) on a new observatory, run by a simulator with
 * `settings` over real sky: answers the owner, the observation, the simulator, the log lines it
 * wrote and the frames and files it uploaded as they come.
 */
async function simulatedNight(settings: Partial<SkySettings>, target = M45) {
  const owner = await createAccount(server);
  const { key, observation } = await observationWithKey(must, {
    owner,
    project: "Simulated sky",
    observation: { name: target.name, targets: [{ ...target, exposures: [{ filter: "V", exposureSeconds: 2, count: 1, binning: 1 }] }] },
  });
  const logged: string[] = [];
  const frames: SkyFrameUpload[] = [];
  const files: Array<{ id: string; previewOf?: unknown; kind?: unknown }> = [];
  const simulator = new ObservatorySimulator({
    url: server.url,
    key,
    speed: 1000,
    sky: { catalogDir: settings.catalogDir ?? CATALOG, ...settings },
    log: (line) => logged.push(line),
  });
  simulator.on("frame", (frame: SkyFrameUpload) => frames.push(frame));
  simulator.on("file", (file: { id: string }) => files.push(file));
  closers.push(() => simulator.close());
  await simulator.connect();
  return { owner, observation, simulator, logged, frames, files };
}

const filesOf = async (owner: Account, observationId: string) =>
  ((await must(`/observations/${observationId}/files`, { token: owner.token })) as { items: FileRead[] }).items;

const analysed = (owner: Account, observationId: string, fileId: string) =>
  until<Frame>(
    `the analysis of ${fileId}`,
    async () => {
      const frame = (await filesOf(owner, observationId)).find((item) => item.id === fileId)?.frame;
      return frame?.status !== "queued" && frame ? frame : undefined;
    },
    { timeoutMs: 320_000, intervalMs: 250 },
  );

const degreesApart = (a: number, b: number) => Math.abs(((a - b + 540) % 360) - 180);

/** The header's cards as FITS writes them, 80 characters each, up to END. */
function headerCards(bytes: Buffer): string[] {
  const cards: string[] = [];
  for (let offset = 0; offset + 80 <= bytes.length; offset += 80) {
    const card = bytes.toString("latin1", offset, offset + 80);
    if (card.startsWith("END ")) return cards;
    cards.push(card);
  }
  throw new Error("no END card");
}

describe("the simulator over real sky", () => {
  it(
    "draws the target's field as its optics see it: solved where it pointed, at its scale, rotation and seeing, with a camera's cards",
    { timeout: 400_000 },
    async () => {
      const seeing = 9;
      const night = await simulatedNight({ seeingArcsec: seeing, pointingErrorArcmin: 6, rotationDeg: 30, seed: 5 });
      const { file: uploaded, facts } = await until("the frame", async () => night.frames[0]);
      const frame = await analysed(night.owner, night.observation.id, uploaded.id);
      expect(frame).toMatchObject({ status: "analysed", solveFailure: null, targetName: "M45" });
      expect(frame.header).toMatchObject({ object: "M45", filter: "V", exposureSeconds: 2, binning: 1, width: 2048, height: 2048, imageType: "Light Frame" });
      // The header names the intended pointing; the frame is drawn where the mount really went.
      expect(frame.header).toMatchObject({ ra: M45.ra, dec: M45.dec });
      expect(facts.pointingErrorArcsec).toBeGreaterThan(60);
      const solution = frame.solution!;
      expect(separationArcsec(solution, facts.centre)).toBeLessThan(10);
      expect(Math.abs(frame.pointingOffsetArcsec! - facts.pointingErrorArcsec)).toBeLessThan(10);
      expect(Math.abs(solution.pixelScaleArcsec / DEFAULT_SCALE - 1)).toBeLessThan(0.01);
      expect(degreesApart(solution.rotationDeg, 30)).toBeLessThan(0.5);
      expect(Math.abs(frame.fwhmArcsec! / seeing - 1)).toBeLessThan(0.2);
      expect(frame.eccentricity!).toBeLessThan(0.4);
      expect(frame.stars).toBeGreaterThanOrEqual(10);

      const download = await server.request(`/files/${uploaded.id}/download`, { token: night.owner.token });
      expect(download.status).toBe(200);
      const cards = headerCards(Buffer.from(await download.arrayBuffer()));
      const value = (key: string) =>
        cards
          .find((card) => card.startsWith(`${key.padEnd(8)}= `))
          ?.slice(10)
          .trim();
      for (const key of ["SIMPLE", "NAXIS1", "NAXIS2", "BZERO", "DATE-OBS", "EXPTIME", "XBINNING", "YBINNING", "RA", "DEC", "TELESCOP", "INSTRUME"]) {
        expect(value(key), key).toBeDefined();
      }
      expect(value("BITPIX")).toBe("16");
      expect(value("OBJCTRA")).toBe("'03 47 00.00'");
      expect(value("OBJCTDEC")).toBe("'+24 07 00.1'");
      expect(value("IMAGETYP")).toBe("'Light Frame'");
      expect(Number(value("XPIXSZ"))).toBe(7.4);
      expect(Number(value("FOCALLEN"))).toBe(500);
      // Its previews are the server's to make: the simulator uploads the frame alone.
      await until("the observation completed", async () => {
        const read = (await must(`/observations/${night.observation.id}`, { token: night.owner.token })) as { status: string };
        return read.status === "completed";
      });
      expect(night.files.map((each) => each.id)).toEqual([uploaded.id]);
    },
  );

  it("stretches its stars along the drift when the tracking errs", { timeout: 400_000 }, async () => {
    const night = await simulatedNight({ seeingArcsec: 9, trackingErrorArcsec: 20, seed: 6 });
    const { file: uploaded } = await until("the frame", async () => night.frames[0]);
    const frame = await analysed(night.owner, night.observation.id, uploaded.id);
    expect(frame.status).toBe("analysed");
    // A 20″ trail on 9″ stars: a/b ≈ 1.8, an eccentricity near 0.8 (round stars measure under 0.4 above).
    expect(frame.eccentricity!).toBeGreaterThan(0.6);
  });

  it("takes its cloud fraction of frames through cloud: most stars lost over a bright background", { timeout: 400_000 }, async () => {
    const night = await simulatedNight({ seeingArcsec: 9, cloudFraction: 1, seed: 7 }, M31);
    const { file: uploaded, facts } = await until("the frame", async () => night.frames[0]);
    expect(facts.clouded).toBe(true);
    const frame = await analysed(night.owner, night.observation.id, uploaded.id);
    expect(frame.status).toBe("analysed");
    expect(facts.stars).toBeGreaterThanOrEqual(20);
    expect(frame.stars).toBeLessThan(10);
    expect(frame).toMatchObject({ solveFailure: "TOO_FEW_STARS", grade: "rejected" });
    expect(frame.rejectedFor).toContain("TOO_FEW_STARS");
    // The background the analysis measures beside its few stars, if it found any, and the file's own: far above a clear sky's 1,000.
    if (frame.backgroundAdu !== null) expect(frame.backgroundAdu).toBeGreaterThan(4000);
    const bytes = Buffer.from(await (await server.request(`/files/${uploaded.id}/download`, { token: night.owner.token })).arrayBuffer());
    const dataOffset = Math.ceil((headerCards(bytes).length + 1) / 36) * 2880;
    const samples = Array.from({ length: 1000 }, (_, index) => bytes.readInt16BE(dataOffset + 2 * index * 4001) + 32768).sort((a, b) => a - b);
    expect(samples[500]).toBeGreaterThan(5000);
  });

  it("without a catalog says so once at start and uploads a placeholder image and its preview, as before", async () => {
    const empty = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-no-catalog-"));
    closers.push(() => fs.rm(empty, { recursive: true, force: true }));
    const night = await simulatedNight({ catalogDir: empty, seed: 8 });
    await until("the observation completed", async () => {
      const read = (await must(`/observations/${night.observation.id}`, { token: night.owner.token })) as { status: string };
      return read.status === "completed";
    });
    const said = night.logged.filter((line) => line.includes("no real sky"));
    expect(said).toEqual([expect.stringContaining(`${empty} holds no astrometry.net index files`)]);
    expect(night.frames).toEqual([]);
    const files = await filesOf(night.owner, night.observation.id);
    const image = files.find((each) => each.filename === "M45.fits")!;
    expect(files.find((each) => each.filename === "preview.png")).toMatchObject({ kind: "preview", previewOfId: image.id });
  });
});
