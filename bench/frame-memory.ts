/**
 * A worker's memory while it analyses 32 MiB frames (issue 58, point 9). Goal: the worker's peak
 * RSS under 200 MiB above its idle RSS.
 *
 *   node --import tsx bench/frame-memory.ts [--frames 3] [--size 4096]
 *
 * A Meridian server in this process (HTTP only, embedded PostgreSQL and S3) and one worker process
 * as `pnpm start:worker` runs it (`apps/worker/src/main.ts`, FRAME_ANALYSIS_CONCURRENCY at its
 * default). The worker idles 5 s (its idle RSS: the median of those samples), then `--frames`
 * frames of `--size`² 16-bit pixels (4096²: 32 MiB) of real sky are uploaded at once with an
 * observatory's plugin key, and analysed one after the other. Sampled every 200 ms as
 * bench/process-memory.ts does, until every frame is analysed:
 *   worker     the worker process's VmRSS (its threads included), and its VmHWM at the end;
 *   tools      the processes the worker started (source-extractor, solve-field and what solve-field
 *              starts: astrometry-engine, image2xy...), apart: the peak of their VmRSS summed, and
 *              each program's own peak (its VmHWM at the last sample that saw it);
 *   together   the worker's and its tools' VmRSS summed at each sample.
 * Results: bench/results/frame-memory.md.
 */
import os from "node:os";
import {
  installCleanupHooks,
  loadAverage,
  makeTempDir,
  median,
  mib,
  numberOption,
  readPeakRss,
  readRss,
  removeTempDirs,
  sleep,
  spawnWorker,
  statusField,
  stopAll,
  writeResult,
} from "./lib.mjs";
import { commandOf, descendantsOf, pleiadesObservation, renderFrame, rssOf, startFrameServer } from "./frames";

const FRAMES = numberOption("frames", 3);
const SIZE = numberOption("size", 4096);
const loadAtStart = loadAverage();
const log = (message: string) => process.stderr.write(`[frame-memory] ${message}\n`);

let server: Awaited<ReturnType<typeof startFrameServer>> | undefined;
installCleanupHooks();

async function main() {
  log(`rendering a ${SIZE}×${SIZE} frame`);
  const { bytes } = await renderFrame({ width: SIZE, height: SIZE, seed: 2 });
  server = await startFrameServer(await makeTempDir("frame-memory"));
  const observation = await pleiadesObservation(server.baseUrl, server.admin);
  const worker = await spawnWorker({ ...server.workerEnv(await makeTempDir("frame-memory-worker")), TMPDIR: await makeTempDir("frame-memory-tmp") });

  const idleSamples: number[] = [];
  for (let sample = 0; sample < 25; sample += 1) {
    idleSamples.push(readRss(worker.pid) ?? 0);
    await sleep(200);
  }
  const idle = median(idleSamples);
  // What the worker runs from its start (tsx's esbuild service) is no tool of an analysis.
  const idleChildren = new Set(descendantsOf(worker.pid));
  const idleChildrenNames = [...idleChildren].map(commandOf).join(", ");
  const peakAtIdle = readPeakRss(worker.pid) ?? 0;
  log(`idle worker: ${mib(idle)} (VmHWM ${mib(peakAtIdle)}); uploading ${FRAMES} frames`);

  const peaks = { worker: 0, tools: 0, together: 0, toolCount: 0 };
  const toolPeaks = new Map<string, number>();
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const workerRss = readRss(worker.pid) ?? 0;
      const tools = rssOf(descendantsOf(worker.pid).filter((pid) => !idleChildren.has(pid)));
      for (const tool of tools.each) {
        const own = statusField(tool.pid, "VmHWM") ?? 0;
        if (tool.command) toolPeaks.set(tool.command, Math.max(toolPeaks.get(tool.command) ?? 0, own));
      }
      peaks.worker = Math.max(peaks.worker, workerRss);
      peaks.tools = Math.max(peaks.tools, tools.total);
      peaks.together = Math.max(peaks.together, workerRss + tools.total);
      peaks.toolCount = Math.max(peaks.toolCount, tools.each.length);
      await sleep(200);
    }
  })();
  const startedAt = performance.now();
  const uploaded = [];
  for (let index = 0; index < FRAMES; index += 1) uploaded.push(await observation.upload(`memory-${index + 1}.fits`, bytes));
  const ids = new Set(uploaded.map((file) => file.id));
  for (;;) {
    const files = (await observation.files()).filter((file) => ids.has(file.id));
    if (files.every((file) => file.frame && file.frame.status !== "queued")) {
      const notAnalysed = files.filter((file) => file.frame!.status !== "analysed" || !file.frame!.solution);
      if (notAnalysed.length > 0) throw new Error(`frames not analysed and solved: ${JSON.stringify(notAnalysed.map((file) => file.frame))}`);
      break;
    }
    if (performance.now() - startedAt > FRAMES * 300_000) throw new Error("the frames were not analysed in time");
    await sleep(500);
  }
  const elapsed = performance.now() - startedAt;
  sampling = false;
  await sampler;
  const workerHwm = readPeakRss(worker.pid) ?? 0;
  const after = readRss(worker.pid) ?? 0;
  if (commandOf(worker.pid) === "") throw new Error("the worker ended before its memory was read");
  await stopAll();

  const above = peaks.worker - idle;
  const text = [
    "# A worker's memory while it analyses 32 MiB frames",
    "",
    `\`node --import tsx bench/frame-memory.ts --frames ${FRAMES} --size ${SIZE}\`, run on ${new Date().toISOString().slice(0, 10)}`,
    `(${os.cpus().length} cores, ${os.cpus()[0]?.model.trim()}, Node ${process.version}; load average at start ${loadAtStart}, at the end ${loadAverage()}).`,
    `${FRAMES} frames of ${SIZE}×${SIZE} 16-bit pixels (${(bytes.length / 1024 ** 2).toFixed(1)} MiB each) uploaded at once to one worker process ` +
      `(\`apps/worker/src/main.ts\`, FRAME_ANALYSIS_CONCURRENCY 1, the default), analysed in ${(elapsed / 1000).toFixed(1)} s; RSS sampled every 200 ms.`,
    "",
    "| Process | Idle | Peak while analysing | Above idle |",
    "|---|---:|---:|---:|",
    `| worker (Node, its threads included) | ${mib(idle)} | ${mib(peaks.worker)} (VmHWM ${mib(workerHwm)}; idle VmHWM ${mib(peakAtIdle)}) | ` +
      `**${mib(above)}** |`,
    `| the tools it ran (up to ${peaks.toolCount} processes at once), summed | 0 MiB | ${mib(peaks.tools)} | ${mib(peaks.tools)} |`,
    `| worker and tools together | ${mib(idle)} | ${mib(peaks.together)} | ${mib(peaks.together - idle)} |`,
    "",
    `Each tool's own peak (VmHWM): ${[...toolPeaks.entries()].map(([command, peak]) => `${command} ${mib(peak)}`).join(", ")}. ` +
      `The worker's RSS after the frames: ${mib(after)}. ` +
      `Not counted as tools: what the worker ran from its start, before any frame (${idleChildrenNames || "nothing"}).`,
    "",
    `- Goal: the worker under 200 MiB above idle while analysing 32 MiB frames: **${above < 200 * 1024 ** 2 ? "met" : "missed"}** ` +
      `(${mib(above)}; with its tools ${mib(peaks.together - idle)}).`,
    "",
  ].join("\n");
  await writeResult("frame-memory.md", text);
  process.stdout.write(text);
}

main()
  .catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(async () => {
    await stopAll();
    await server?.running.stop().catch(() => undefined);
    await removeTempDirs();
  });
