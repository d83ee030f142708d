import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { separationArcsec, type FrameAnalysis } from "@meridian/rules/frames";
import { seededRandom } from "@meridian/simulator/sky";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { isRunning, spawnEntry, terminate, waitForOutput, type NodeProcess } from "../support/node-process";
import { observationWithKey } from "../support/observatory-keys";
import { densestIndexFile, fitsData16, fitsHeader, renderRandomStars, renderSkyFrame, type CardValue } from "../support/sky-frame";
import { sharedProcessEnv, type TestServer } from "../support/test-server";
import { until } from "../support/until";

// Real tools on real sky: Debian's source-extractor and astrometry.net's solve-field against the
// Tycho-2 index files of /usr/share/astrometry (`.ci/run` and scripts/start.sh install them).
const CATALOG = "/usr/share/astrometry";
const ADMIN = { email: "frames-admin@example.com", password: "frames admin password" };
const servers: TestServer[] = [];
const workers: NodeProcess[] = [];
afterAll(async () => {
  for (const worker of workers) if (isRunning(worker)) await terminate(worker, 10_000);
  for (const server of servers.reverse()) await server.stop().catch(() => undefined);
});

async function start(env: Record<string, string>) {
  const started = await startServerWithAdmin(ADMIN, env);
  servers.push(started.server);
  return started.server;
}

type Frame = Omit<FrameAnalysis, "analysedAt"> & { analysedAt: string | null };
interface FileRead {
  id: string;
  createdAt: string;
  frame: Frame | null;
}

/** The pointing every sky frame here is rendered at: the Pleiades, off the target below by a known distance. */
const POINTING = { ra: 56.8, dec: 24.05 };
const M45 = { name: "M45", ra: 56.75, dec: 24.1167 };
const SCALE = 7;
/** Room for a machine whose cores other work shares: a solve of these frames takes 2 s of CPU. */
const TIMEOUT_SECONDS = "300";

/** Pixels of faint flat noise, no star in them: the same every run (seeded), so a case analyses the same frame each time. */
const faintNoise = (pixels: number) => {
  const random = seededRandom(pixels);
  return Float64Array.from({ length: pixels }, () => 1000 + 10 * random());
};
const ROTATION = 37.5;
const FWHM_PIXELS = 3.2;
const cards = (extra: Array<[string, CardValue]> = []): Array<[string, CardValue]> => [
  ["OBJECT", "m45"],
  ["DATE-OBS", "2026-11-28T21:04:05.123"],
  ["EXPTIME", 60],
  ["FILTER", "L"],
  ["XBINNING", 1],
  ["OBJCTRA", "03 47 12"],
  ["OBJCTDEC", "+24 03 00"],
  ["IMAGETYP", "Light Frame"],
  ...extra,
];

let skyFrame: Buffer;
beforeAll(async () => {
  const indexFile = await densestIndexFile(CATALOG);
  ({ bytes: skyFrame } = await renderSkyFrame({ ...POINTING, scaleArcsec: SCALE, rotationDeg: ROTATION, fwhmPixels: FWHM_PIXELS, indexFile, cards: cards() }));
}, 60_000);

function api(server: TestServer) {
  const { must } = jsonApi(() => server);
  const observation = async (owner: Account) =>
    observationWithKey(must, {
      owner,
      project: "Frames",
      observation: {
        name: "Pleiades",
        targets: [
          { name: "Deneb", ra: 310.36, dec: 45.28, exposures: [{ filter: "L", exposureSeconds: 60, count: 1, binning: 1 }] },
          { ...M45, exposures: [{ filter: "L", exposureSeconds: 60, count: 1, binning: 1 }] },
        ],
      },
    });
  const upload = async (observationId: string, key: string, filename: string, bytes: Buffer) => {
    const response = await server.request(`/observations/${observationId}/files?filename=${encodeURIComponent(filename)}`, {
      method: "POST",
      token: key,
      headers: { "content-type": "application/octet-stream" },
      body: new Uint8Array(bytes),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as FileRead;
  };
  const analysed = (owner: Account, observationId: string, fileId: string) =>
    until(
      `the analysis of ${fileId}`,
      async () => {
        const files = (await must(`/observations/${observationId}/files`, { token: owner.token })) as { items: FileRead[] };
        const file = files.items.find((item) => item.id === fileId)!;
        return file.frame?.status !== "queued" && file;
      },
      { timeoutMs: 320_000, intervalMs: 250 },
    );
  return { must, observation, upload, analysed };
}

const degreesApart = (a: number, b: number) => Math.abs(((a - b + 540) % 360) - 180);

describe("frame analysis", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await start({ MERIDIAN_ROLE: "all", STAR_CATALOG_DIR: CATALOG, FRAME_ANALYSIS_TIMEOUT_SECONDS: TIMEOUT_SECONDS });
  });

  it("measures, plate-solves and grades a frame of real sky, whatever its name", { timeout: 400_000 }, async () => {
    const { observation, upload, analysed } = api(server);
    const owner = await createAccount(server);
    const { key, observation: created } = await observation(owner);
    const queued = await upload(created.id, key, "no extension", skyFrame);
    expect(queued.frame).toMatchObject({ status: "queued", grade: null, solution: null });
    const file = await analysed(owner, created.id, queued.id);
    const frame = file.frame!;
    expect(frame).toMatchObject({ status: "analysed", failure: null, solveFailure: null, targetName: "M45", grade: "accepted", rejectedFor: [] });
    expect(frame.header).toEqual({
      object: "m45",
      dateObs: "2026-11-28T21:04:05.123",
      exposureSeconds: 60,
      filter: "L",
      binning: 1,
      width: 1024,
      height: 1024,
      ra: 56.8,
      dec: 24.05,
      imageType: "Light Frame",
    });
    const solution = frame.solution!;
    expect(separationArcsec(solution, POINTING)).toBeLessThan(10);
    expect(Math.abs(solution.pixelScaleArcsec / SCALE - 1)).toBeLessThan(0.01);
    expect(degreesApart(solution.rotationDeg, ROTATION)).toBeLessThan(0.5);
    expect(solution.widthDeg).toBeCloseTo((1024 * SCALE) / 3600, 2);
    expect(Math.abs(frame.fwhmArcsec! / (FWHM_PIXELS * SCALE) - 1)).toBeLessThan(0.2);
    // A Gaussian's half-flux radius is half its FWHM.
    expect(Math.abs(frame.hfrArcsec! / ((FWHM_PIXELS * SCALE) / 2) - 1)).toBeLessThan(0.2);
    expect(frame.eccentricity!).toBeLessThan(0.3);
    expect(Math.abs(frame.backgroundAdu! - 1000)).toBeLessThan(20);
    expect(frame.stars).toBeGreaterThanOrEqual(20);
    expect(Math.abs(frame.pointingOffsetArcsec! - separationArcsec(POINTING, M45))).toBeLessThan(10);
    console.info(`sky frame analysed in ${(Date.parse(frame.analysedAt!) - Date.parse(file.createdAt)) / 1000} s after its upload`);
  });

  it("analyses the first image extension, and leaves a FITS file without an image and other files without a frame", { timeout: 400_000 }, async () => {
    const { observation, upload, analysed } = api(server);
    const owner = await createAccount(server);
    const { key, observation: created } = await observation(owner);
    const primaryHeader = fitsHeader([
      ["SIMPLE", true],
      ["BITPIX", 8],
      ["NAXIS", 0],
      ["EXTEND", true],
    ]);
    const { bytes: extended } = await renderSkyFrame({
      ...POINTING,
      scaleArcsec: SCALE,
      rotationDeg: ROTATION,
      fwhmPixels: FWHM_PIXELS,
      indexFile: await densestIndexFile(CATALOG),
      cards: cards().filter(([key]) => key !== "OBJECT"),
      inExtension: true,
    });
    const inExtension = await upload(created.id, key, "extension.fits", extended);
    const noImage = await upload(created.id, key, "table.fits", primaryHeader);
    const notFits = await upload(created.id, key, "notes.fits", Buffer.from("SIMPLE? no: a text file named like a frame"));
    expect(notFits.frame).toBeNull();
    expect((await analysed(owner, created.id, noImage.id)).frame).toBeNull();
    const frame = (await analysed(owner, created.id, inExtension.id)).frame!;
    expect(frame).toMatchObject({ status: "analysed", header: { object: null, filter: "L", width: 1024 } });
    expect(separationArcsec(frame.solution!, POINTING)).toBeLessThan(10);
  });

  it(
    "fails each hostile frame with its reason in words, runs nothing its name or header says, and analyses the next frame as usual",
    { timeout: 400_000 },
    async () => {
      const { observation, upload, analysed } = api(server);
      const owner = await createAccount(server);
      const { key, observation: created } = await observation(owner);
      const image = (more: Array<[string, CardValue]>, axes: [number, number] = [64, 64], bitpix = 16): Array<[string, CardValue]> => [
        ["SIMPLE", true],
        ["BITPIX", bitpix],
        ["NAXIS", 2],
        ["NAXIS1", axes[0]],
        ["NAXIS2", axes[1]],
        ...more,
      ];
      const badBytes = fitsHeader(image([["OBJECT", "M45"]]));
      badBytes[80 * 5 + 12] = 0xff;
      const canaryName = `meridian-canary-${process.pid}`;
      const canary = path.join(os.tmpdir(), canaryName);
      // A card holds 68 characters of a string value: in a longer temporary directory the header could not carry the canary whole.
      expect(`$(touch ${canary})`.length).toBeLessThanOrEqual(68);
      const hostile: Array<{ name: string; bytes: Buffer; reason: RegExp }> = [
        { name: "truncated.fits", bytes: fitsHeader(image([])).subarray(0, 2000), reason: /^The frame cannot be read: The header is truncated/ },
        { name: "no-end.fits", bytes: fitsHeader(image([]), { end: false }), reason: /header is truncated: the file ends before its END card/ },
        { name: "bytes.fits", bytes: badBytes, reason: /a card holds bytes other than printable ASCII/ },
        {
          name: "short.fits",
          bytes: Buffer.concat([fitsHeader(image([], [1024, 1024])), Buffer.alloc(2880 * 4)]),
          reason: /data is shorter than the header says: NAXIS1 × NAXIS2 × \|BITPIX\|\/8 = 2,097,152 bytes, the file holds 11,520/,
        },
        { name: "bitpix.fits", bytes: Buffer.concat([fitsHeader(image([], [64, 64], 64)), Buffer.alloc(64 * 64 * 8)]), reason: /BITPIX 64 is not supported/ },
        {
          name: "cards.fits",
          bytes: fitsHeader(image(Array.from({ length: 10_001 }, (_, index): [string, CardValue] => [`K${index}`, index]))),
          reason: /more than 10,000 cards/,
        },
        { name: "huge.fits", bytes: fitsHeader(image([], [20_000, 6_000], 8)), reason: /120\.0 megapixels, more than the 100 analysed/ },
      ];
      const uploaded = [];
      for (const each of hostile) uploaded.push({ ...each, file: await upload(created.id, key, each.name, each.bytes) });
      // Shell metacharacters in the name and the header: stored as they are, never run.
      const quoting = await upload(
        created.id,
        key,
        `$(touch ${canaryName});\`touch ${canaryName}\`|&<>.fits`,
        Buffer.concat([
          fitsHeader(
            image([
              ["OBJECT", `$(touch ${canary})`],
              ["FILTER", `'; touch ${canaryName} #`],
            ]),
          ),
          fitsData16(faintNoise(64 * 64)),
        ]),
      );
      const next = await upload(created.id, key, "next.fits", skyFrame);
      for (const each of uploaded) {
        const frame = (await analysed(owner, created.id, each.file.id)).frame!;
        expect({ name: each.name, status: frame.status }).toEqual({ name: each.name, status: "failed" });
        expect(frame.failure).toMatch(each.reason);
      }
      const quoted = (await analysed(owner, created.id, quoting.id)).frame!;
      expect(quoted).toMatchObject({
        status: "analysed",
        header: { object: `$(touch ${canary})`, filter: `'; touch ${canaryName} #` },
        stars: 0,
        grade: "rejected",
      });
      expect(quoted.rejectedFor).toEqual(["NOT_SOLVED", "TOO_FEW_STARS"]);
      expect(quoted.solveFailure).toBe("TOO_FEW_STARS");
      for (const where of [canary, path.resolve(canaryName)]) await expect(fs.access(where)).rejects.toThrow();
      const after = (await analysed(owner, created.id, next.id)).frame!;
      expect(after).toMatchObject({ status: "analysed", grade: "accepted" });
      // Every analysis removed its folder.
      const left = await fs.readdir(path.join(os.tmpdir(), "meridian-frame-analysis")).catch(() => []);
      expect(left.filter((entry) => entry.startsWith(`${process.pid}-`))).toEqual([]);
    },
  );
});

describe("a frame over FRAME_ANALYSIS_TIMEOUT_SECONDS", () => {
  it(
    "fails with that reason, its tools killed and its folder removed, one analysis at a time, and the next frame is analysed",
    { timeout: 400_000 },
    async () => {
      const server = await start({
        MERIDIAN_ROLE: "all",
        STAR_CATALOG_DIR: CATALOG,
        FRAME_ANALYSIS_TIMEOUT_SECONDS: "5",
        FRAME_ANALYSIS_CONCURRENCY: "1",
        WORKER_CONCURRENCY: "4",
      });
      const { observation, upload, analysed } = api(server);
      const owner = await createAccount(server);
      const { key, observation: created } = await observation(owner);
      // Hundreds of stars that match no catalog and no hint: a blind solve searches for minutes.
      const nowhere = renderRandomStars({ width: 1024, height: 1024, count: 800, fwhmPixels: 3 }).bytes;
      const slow = await upload(created.id, key, "nowhere.fits", nowhere);
      const slowToo = await upload(created.id, key, "nowhere again.fits", nowhere);
      const noise = Buffer.concat([
        fitsHeader([
          ["SIMPLE", true],
          ["BITPIX", 16],
          ["NAXIS", 2],
          ["NAXIS1", 64],
          ["NAXIS2", 64],
        ]),
        fitsData16(faintNoise(64 * 64)),
      ]);
      const next = await upload(created.id, key, "next.fits", noise);
      const frame = (await analysed(owner, created.id, slow.id)).frame!;
      expect(frame).toMatchObject({ status: "failed", failure: "The analysis took longer than 5 s (FRAME_ANALYSIS_TIMEOUT_SECONDS) and was stopped" });
      const other = (await analysed(owner, created.id, slowToo.id)).frame!;
      expect(other.failure).toBe(frame.failure);
      // FRAME_ANALYSIS_CONCURRENCY 1 (of WORKER_CONCURRENCY 4 runs): the second's limit began when the first's slot was free, so it
      // ran out of time about a whole limit (5 s) later; side by side they end about 0.1 s apart. Each result is written after its
      // slot, on a loaded machine tens of milliseconds late (CI saw 4.94 s), hence half the limit as the line between the two.
      expect(Math.abs(Date.parse(other.analysedAt!) - Date.parse(frame.analysedAt!))).toBeGreaterThanOrEqual(2_500);
      const ours = path.join(os.tmpdir(), "meridian-frame-analysis", `${process.pid}-`);
      const { stdout } = await promisify(execFile)("ps", ["-eo", "args"]);
      expect(stdout.split("\n").filter((line) => line.includes(ours))).toEqual([]);
      expect((await analysed(owner, created.id, next.id)).frame).toMatchObject({ status: "analysed", solveFailure: "TOO_FEW_STARS" });
      const left = await fs.readdir(path.join(os.tmpdir(), "meridian-frame-analysis")).catch(() => []);
      expect(left.filter((entry) => entry.startsWith(`${process.pid}-`))).toEqual([]);
    },
  );
});

describe("frame analysis without a star catalog", () => {
  it("measures and grades frames without the offset check (CATALOG_MISSING) and tells server admins once", { timeout: 400_000 }, async () => {
    const emptyCatalog = await fs.mkdtemp(path.join(os.tmpdir(), "no-star-catalog-"));
    const server = await start({ MERIDIAN_ROLE: "all", STAR_CATALOG_DIR: emptyCatalog, FRAME_ANALYSIS_TIMEOUT_SECONDS: TIMEOUT_SECONDS });
    const { observation, upload, analysed } = api(server);
    const owner = await createAccount(server);
    const { key, observation: created } = await observation(owner);
    const first = await upload(created.id, key, "first.fits", skyFrame);
    const second = await upload(created.id, key, "second.fits", skyFrame);
    for (const file of [first, second]) {
      const frame = (await analysed(owner, created.id, file.id)).frame!;
      expect(frame).toMatchObject({ status: "analysed", solution: null, solveFailure: "CATALOG_MISSING", pointingOffsetArcsec: null, grade: "accepted" });
      expect(frame.stars).toBeGreaterThanOrEqual(20);
      // No pixel scale known (no solution, no hint): the FWHM stays in pixels only, so it is not given.
      expect(frame.fwhmArcsec).toBeNull();
    }
    const [told] = await server.server.runtime.deps.db.execute<{ count: number }>(
      sql`select count(*)::int as count from email_outbox where doc->>'kind' = 'star_catalog_missing'`,
    );
    expect(told!.count).toBe(1);
    await fs.rm(emptyCatalog, { recursive: true, force: true });
  });
});

describe("a frame whose worker was killed mid-analysis", () => {
  it(
    "is analysed again, once, by the next worker, which removes the dead one's folder; a run after the result changes nothing",
    { timeout: 400_000 },
    async () => {
      // HTTP only: the analysis is the work of the worker process started below.
      const server = await start({ STAR_CATALOG_DIR: CATALOG, FRAME_ANALYSIS_TIMEOUT_SECONDS: TIMEOUT_SECONDS });
      const { observation, upload, analysed } = api(server);
      const owner = await createAccount(server);
      const { key, observation: created } = await observation(owner);
      const file = await upload(created.id, key, "killed.fits", skyFrame);
      const { deps } = server.server.runtime;
      // The scene a worker killed (-9) mid-analysis leaves: its job locked by it, one attempt spent, its heartbeat and its folder.
      const [stranded] = await deps.db.execute<{ id: string }>(sql`
      update graphile_worker._private_jobs set locked_by = 'worker-killed-mid-analysis', locked_at = now(), attempts = 1
       where payload->>'fileId' = ${file.id} returning id::text`);
      expect(stranded).toBeDefined();
      await deps.db.execute(sql`
      insert into worker_heartbeats (worker_id, graphile_worker_ids) values ('killed-analysis', array['worker-killed-mid-analysis']::text[])`);
      const deadPid = 4_194_000 + Math.floor(Math.random() * 300);
      const leftover = path.join(os.tmpdir(), "meridian-frame-analysis", `${deadPid}-killed`);
      await fs.mkdir(leftover, { recursive: true });
      await fs.writeFile(path.join(leftover, "frame.fits"), skyFrame);

      const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-frames-worker-"));
      const worker = spawnEntry(
        "worker",
        {
          ...sharedProcessEnv(server, dataDir),
          STAR_CATALOG_DIR: CATALOG,
          FRAME_ANALYSIS_TIMEOUT_SECONDS: TIMEOUT_SECONDS,
          // Where this test left the dead worker's folder: the worker's temporary folder is the machine's.
          TMPDIR: os.tmpdir(),
          LOG_LEVEL: "info",
        },
        "frames worker",
      );
      workers.push(worker);
      await waitForOutput(worker, /Meridian worker running/);
      await expect(fs.access(leftover)).rejects.toThrow();
      const frame = (await analysed(owner, created.id, file.id)).frame!;
      expect(frame).toMatchObject({ status: "analysed", grade: "accepted" });
      const [job] = await deps.db.execute<{ count: number }>(
        sql`select count(*)::int as count from graphile_worker._private_jobs where payload->>'fileId' = ${file.id}`,
      );
      expect(job!.count).toBe(0);

      // The same job once more (run again after its result was written): the frame no longer waits for it, so nothing is written.
      const [{ analysis_id: analysisId } = { analysis_id: "" }] = await deps.db.execute<{ analysis_id: string }>(
        sql`select doc->'frame'->>'analysisId' as analysis_id from files where id = ${file.id}`,
      );
      const [again] = await deps.db.execute<{ id: string }>(sql`
      select (graphile_worker.add_job('analyse_frame', ${JSON.stringify({ fileId: file.id, analysisId })}::json)).id::text as id`);
      await until("the repeated job to be done", async () => {
        const [row] = await deps.db.execute<{ count: number }>(
          sql`select count(*)::int as count from graphile_worker._private_jobs where id = ${again!.id}::bigint`,
        );
        return row!.count === 0;
      });
      const [stored] = await deps.db.execute<{ analysed_at: string }>(sql`select doc->'frame'->>'analysedAt' as analysed_at from files where id = ${file.id}`);
      expect(stored!.analysed_at).toBe(frame.analysedAt);
    },
  );
});
