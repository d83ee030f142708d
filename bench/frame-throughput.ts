/**
 * Frames arriving as a night's imaging sends them (issue 58, point 9): `--frames` frames of
 * `--size`² 16-bit pixels, one every `--every` seconds, through the plugin's public upload to
 * Meridian as `pnpm start` runs it (server and worker in one process, FRAME_ANALYSIS_CONCURRENCY
 * at its default unless `--concurrency`), each measured from the start of its upload to its
 * `analysedAt`. Goal: p95 under 60 s on this machine, with no growing backlog.
 *
 *   node --import tsx bench/frame-throughput.ts [--frames 100] [--every 5] [--size 3000] [--variants 4] [--concurrency N]
 *
 * The frames are `--variants` renderings of the Pleiades' real sky (dithered by a few arcminutes,
 * rotated, other noise), made before the first upload and sent in turn. The observation's files
 * are read as its owner reads them every 2 s: the backlog is the frames uploaded and not yet
 * analysed, sampled then. The server's CPU seconds include the tools it ran (reaped children: cutime and cstime).
 * The 100 frames take 100 × 5 s = 8.3 min of arrivals, then the last analyses.
 * Results: bench/results/frame-throughput.md.
 */
import os from "node:os";
import {
  cpuSecondsWithChildren,
  freePort,
  installCleanupHooks,
  loadAverage,
  makeTempDir,
  median,
  numberOption,
  percentile,
  removeTempDirs,
  sleep,
  spawnMeridian,
  stopAll,
  waitForStatus,
  writeResult,
} from "./lib.mjs";
import { pleiadesObservation, renderFrame, STAR_CATALOG, type FrameRead } from "./frames";

const FRAMES = numberOption("frames", 100);
const EVERY_SECONDS = numberOption("every", 5);
const SIZE = numberOption("size", 3000);
const VARIANTS = Math.max(1, numberOption("variants", 4));
const CONCURRENCY = process.argv.includes("--concurrency") ? numberOption("concurrency", 1) : undefined;
/** After the last arrival, how long the analyses may take to catch up before the run is called off. */
const DRAIN_LIMIT_MS = 10 * 60_000;
const POLL_MS = 2_000;
const loadAtStart = loadAverage();
const log = (message: string) => process.stderr.write(`[frame-throughput] ${message}\n`);

installCleanupHooks();

interface Arrival {
  index: number;
  sentAt: number;
  id?: string;
  analysedAt?: number;
  status?: string;
}

async function main() {
  const frames = [];
  for (let seed = 1; seed <= VARIANTS; seed += 1) {
    log(`rendering frame ${seed} of ${VARIANTS} (${SIZE}×${SIZE})`);
    frames.push((await renderFrame({ width: SIZE, height: SIZE, seed })).bytes);
  }
  const dataDir = await makeTempDir("frame-throughput");
  const admin = { email: "frames-bench@example.com", password: "frames bench password" };
  const server = spawnMeridian({
    dataDir,
    port: await freePort(),
    postgresPort: await freePort(),
    role: "all",
    // The analyses' work folders go under TMPDIR: a temporary folder of the run's, removed with it.
    tmpDir: await makeTempDir("frame-throughput-tmp"),
    extraEnv: {
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
      STAR_CATALOG_DIR: STAR_CATALOG,
      ...(CONCURRENCY ? { FRAME_ANALYSIS_CONCURRENCY: String(CONCURRENCY) } : {}),
    },
  });
  await waitForStatus(server, `${server.baseUrl}/api/health/ready`);
  const observation = await pleiadesObservation(server.baseUrl, admin);

  const arrivals: Arrival[] = [];
  const samples: Array<{ atSeconds: number; uploaded: number; analysed: number; waiting: number; load: number }> = [];
  const uploads: Array<Promise<void>> = [];
  const cpuAtStart = cpuSecondsWithChildren(server.pid);
  const startedAt = Date.now();
  let polling = true;
  const poller = (async () => {
    while (polling) {
      const files = await observation.files().catch((error: unknown) => {
        log(`reading the files failed: ${String(error)}`);
        return [];
      });
      const byId = new Map(files.map((file: FrameRead) => [file.id, file]));
      for (const arrival of arrivals) {
        const frame = arrival.id ? byId.get(arrival.id)?.frame : undefined;
        if (arrival.analysedAt === undefined && frame && frame.status !== "queued") {
          arrival.status = frame.status;
          arrival.analysedAt = Date.parse(frame.analysedAt!);
        }
      }
      const uploaded = arrivals.filter((arrival) => arrival.id).length;
      const analysed = arrivals.filter((arrival) => arrival.analysedAt !== undefined).length;
      samples.push({ atSeconds: (Date.now() - startedAt) / 1000, uploaded, analysed, waiting: uploaded - analysed, load: os.loadavg()[0]! });
      await sleep(POLL_MS);
    }
  })();

  for (let index = 0; index < FRAMES; index += 1) {
    await sleep(Math.max(0, startedAt + index * EVERY_SECONDS * 1000 - Date.now()));
    const arrival: Arrival = { index, sentAt: Date.now() };
    arrivals.push(arrival);
    uploads.push(
      observation.upload(`pleiades-${String(index + 1).padStart(3, "0")}.fits`, frames[index % frames.length]!).then((file) => {
        arrival.id = file.id;
      }),
    );
    if ((index + 1) % 10 === 0) log(`${index + 1} frames sent, ${arrivals.filter((each) => each.analysedAt !== undefined).length} analysed`);
  }
  await Promise.all(uploads);
  const lastSentAt = Date.now();
  while (arrivals.some((arrival) => arrival.analysedAt === undefined) && Date.now() - lastSentAt < DRAIN_LIMIT_MS) await sleep(500);
  polling = false;
  await poller;
  const serverCpu = cpuSecondsWithChildren(server.pid) - cpuAtStart;
  const loadAtEnd = loadAverage();
  await stopAll();

  const done = arrivals.filter((arrival) => arrival.analysedAt !== undefined);
  const latencies = done.map((arrival) => arrival.analysedAt! - arrival.sentAt);
  const seconds = (ms: number) => (ms / 1000).toFixed(1);
  const p95 = percentile(latencies, 95);
  const notAnalysed = arrivals.length - done.length;
  const failed = done.filter((arrival) => arrival.status !== "analysed").length;
  // The backlog while frames arrive: the samples of the first and the second half of the arrivals.
  const arrivalSeconds = FRAMES * EVERY_SECONDS;
  const during = samples.filter((sample) => sample.atSeconds <= arrivalSeconds);
  const firstHalf = during.filter((sample) => sample.atSeconds <= arrivalSeconds / 2).map((sample) => sample.waiting);
  const secondHalf = during.filter((sample) => sample.atSeconds > arrivalSeconds / 2).map((sample) => sample.waiting);
  const mean = (values: number[]) => (values.length ? values.reduce((sum, value) => sum + value, 0) / values.length : 0);
  const growing = mean(secondHalf) > mean(firstHalf) + 1;
  const met = notAnalysed === 0 && p95 < 60_000 && !growing;
  // One row a minute (and the last), from the samples.
  const timeline = samples.filter(
    (sample, index) => index === samples.length - 1 || Math.floor(sample.atSeconds / 60) !== Math.floor((samples[index + 1]?.atSeconds ?? 0) / 60),
  );
  const loads = samples.map((sample) => sample.load);
  const text = [
    "# Frames arriving every few seconds: upload to analysed",
    "",
    `\`node --import tsx bench/frame-throughput.ts --frames ${FRAMES} --every ${EVERY_SECONDS} --size ${SIZE} --variants ${VARIANTS}` +
      `${CONCURRENCY ? ` --concurrency ${CONCURRENCY}` : ""}\`, run on ${new Date().toISOString().slice(0, 10)}`,
    `(${os.cpus().length} cores, ${os.cpus()[0]?.model.trim()}, Node ${process.version}; load average at start ${loadAtStart}, at the end ${loadAtEnd}; ` +
      `1-minute load during the run: median ${median(loads).toFixed(2)}, max ${Math.max(...loads).toFixed(2)}).`,
    `${FRAMES} frames of ${SIZE}×${SIZE} 16-bit pixels (${((SIZE * SIZE * 2) / 1024 ** 2).toFixed(1)} MiB), one every ${EVERY_SECONDS} s, ` +
      `uploaded with an observatory's plugin key to Meridian as \`pnpm start\` runs it (server and worker in one process, ` +
      `FRAME_ANALYSIS_CONCURRENCY ${CONCURRENCY ?? "1 (the default)"}).`,
    "",
    "| Upload to analysed | p50 | p95 | max | Analysed | Failed | Not analysed |",
    "|---|---:|---:|---:|---:|---:|---:|",
    `| Meridian | ${seconds(percentile(latencies, 50))} s | ${seconds(p95)} s | ${seconds(Math.max(0, ...latencies))} s | ` +
      `${done.length - failed} | ${failed} | ${notAnalysed} |`,
    "",
    `The server process used ${serverCpu.toFixed(0)} CPU seconds (the tools it ran included): ${(serverCpu / Math.max(1, done.length)).toFixed(1)} s a frame.`,
    "",
    "Backlog (frames uploaded and not yet analysed), sampled every 2 s, a row a minute:",
    "",
    "| Time | Uploaded | Analysed | Waiting | 1-min load |",
    "|---:|---:|---:|---:|---:|",
    ...timeline.map(
      (sample) => `| ${sample.atSeconds.toFixed(0)} s | ${sample.uploaded} | ${sample.analysed} | ${sample.waiting} | ${sample.load.toFixed(2)} |`,
    ),
    "",
    `- Waiting while frames arrived: mean ${mean(firstHalf).toFixed(1)} in the first half, ${mean(secondHalf).toFixed(1)} in the second, ` +
      `max ${Math.max(0, ...during.map((sample) => sample.waiting))}: ${growing ? "**growing**" : "not growing"}.`,
    `- Goal: p95 under 60 s with no growing backlog: **${met ? "met" : "missed"}**.`,
    "",
  ].join("\n");
  await writeResult("frame-throughput.md", text);
  process.stdout.write(text);
}

main()
  .catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(async () => {
    await stopAll();
    await removeTempDirs();
  });
