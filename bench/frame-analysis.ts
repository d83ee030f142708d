/**
 * One frame analysed end to end against the field's tools run bare on the same file (issue 58, point 9).
 * Goal: Meridian's analysis within 1.15× of the bare tools' time.
 *
 *   node --import tsx bench/frame-analysis.ts [--rounds 5] [--size 4096]
 *
 * The frame: `--size` × `--size` 16-bit pixels of real sky (4096²: 32 MiB), the Pleiades rendered from
 * Debian's Tycho-2 index at 3″ a pixel, with the header cards a capture program writes (OBJCTRA/OBJCTDEC,
 * XPIXSZ and FOCALLEN, from which Meridian takes the solver's hints).
 *   Meridian  the plugin's upload (not timed), then the domain's `analyseFrame` (the `analyse_frame`
 *             job's body) on the runtime of a server started in this process (MERIDIAN_ROLE=server, so
 *             no worker takes the job first): records read, download from the embedded S3 to a work
 *             folder, header read, source-extractor, solve-field, grading and the write, folder removed.
 *             Each stage is timed from the outside: the storage's `get` and its body's end, and the
 *             child processes as node:diagnostics_channel reports them.
 *   peer      the same two tools run bare from a shell (`sh -c`) on the same file on local disk, with
 *             exactly the arguments and configuration files Meridian gave them in its first (warm-up)
 *             analysis: its work folder's paths replaced by the peer's, no prlimit.
 * One warm-up of each, then `--rounds` rounds taking turns (which side goes first alternates); medians.
 * CPU seconds beside wall time: the tools' (their user + system time as reaped children of this
 * process) and, for Meridian, this process's own (the download through s3rver, the reads, the write).
 * Results: bench/results/frame-analysis.md.
 */
import { execFile } from "node:child_process";
import { copyFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { filesCollection, type ObjectStorage } from "@meridian/db";
import { analyseFrame } from "@meridian/domain/frames";
import { type Deps } from "@meridian/domain/platform";
import { installCleanupHooks, loadAverage, makeTempDir, median, numberOption, removeTempDirs, writeResult } from "./lib.mjs";
import { pleiadesObservation, reapedChildrenCpuSeconds, renderFrame, startFrameServer, watchChildProcesses, type ToolRun } from "./frames";

const ROUNDS = numberOption("rounds", 5);
const SIZE = numberOption("size", 4096);
const loadAtStart = loadAverage();
const log = (message: string) => process.stderr.write(`[frame-analysis] ${message}\n`);
const run = promisify(execFile);

let server: Awaited<ReturnType<typeof startFrameServer>> | undefined;
installCleanupHooks();

const ownCpuSeconds = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
};

interface MeridianRound {
  totalMs: number;
  stages: Record<string, number>;
  solvePasses: number;
  /** CPU seconds of the tools: source-extractor's, solve-field's (with what it starts), all of them. */
  extractionCpu: number;
  solveCpu: number;
  toolCpu: number;
  /** CPU seconds of this process during the analysis: Meridian's own work, the embedded S3's serving of the download included. */
  ownCpu: number;
  outcome: string;
}

interface PeerRound {
  extractionMs: number;
  solveMs: number;
  extractionCpu: number;
  solveCpu: number;
}

const span = (tool: ToolRun) => (tool.endedAt ?? tool.startedAt) - tool.startedAt;

async function main() {
  const dataDir = await makeTempDir("frame-analysis");
  const peerDir = await makeTempDir("frame-peer");
  log(`rendering a ${SIZE}×${SIZE} frame`);
  const rendered = await renderFrame({ width: SIZE, height: SIZE, seed: 1 });
  const peerFrame = path.join(peerDir, "frame.fits");
  await fs.writeFile(peerFrame, rendered.bytes);
  server = await startFrameServer(dataDir);
  const { deps } = server.running.runtime;
  const observation = await pleiadesObservation(server.baseUrl, server.admin);

  /** The peer's commands: Meridian's, learnt in its warm-up, with its work folder's paths turned into the peer's. */
  const peerCommands: Record<string, string[]> = {};
  const inputsCopied: string[] = [];
  const learn = (tool: ToolRun) => {
    if (peerCommands[tool.tool] || (tool.tool !== "source-extractor" && tool.tool !== "solve-field")) return;
    const framePath = tool.args.at(tool.tool === "source-extractor" ? 0 : -1)!;
    const folder = path.dirname(framePath);
    // The small files Meridian wrote for the tool (its parameter list, solve-field's configuration): copied now, while they exist.
    for (const arg of tool.args)
      if (arg.startsWith(`${folder}/`) && arg !== framePath)
        try {
          copyFileSync(arg, path.join(peerDir, path.basename(arg)));
          inputsCopied.push(path.basename(arg));
        } catch {
          // An output (solve-field's --wcs), not yet written.
        }
    peerCommands[tool.tool] = tool.args.map((arg) => arg.split(folder).join(peerDir));
  };

  let uploads = 0;
  async function meridianRound(warmUp: boolean): Promise<MeridianRound> {
    uploads += 1;
    const uploaded = await observation.upload(`frame-${uploads}.fits`, rendered.bytes);
    const stored = await filesCollection.get(deps.db, uploaded.id);
    const analysisId = stored?.doc.frame?.analysisId;
    if (!analysisId) throw new Error(`the upload queued no analysis: ${JSON.stringify(stored?.doc.frame)}`);
    const marks: { getAt?: number; downloadedAt?: number } = {};
    const storage: ObjectStorage = {
      ...deps.storage,
      async get(key) {
        marks.getAt = performance.now();
        const object = await deps.storage.get(key);
        object?.body.once("end", () => (marks.downloadedAt = performance.now()));
        return object;
      },
    };
    const watcher = watchChildProcesses(warmUp ? learn : undefined);
    const [toolCpuBefore, ownCpuBefore] = [reapedChildrenCpuSeconds(), ownCpuSeconds()];
    const startedAt = performance.now();
    const outcome = await analyseFrame({ deps: { ...deps, storage } satisfies Deps, fileId: uploaded.id, analysisId });
    const endedAt = performance.now();
    const ownCpu = ownCpuSeconds() - ownCpuBefore;
    watcher.stop();
    const toolCpu = reapedChildrenCpuSeconds() - toolCpuBefore;
    const frame = (await filesCollection.get(deps.db, uploaded.id))?.doc.frame;
    if (frame?.status !== "analysed" || !frame.solution) throw new Error(`the frame was not analysed and solved: ${outcome} ${JSON.stringify(frame)}`);
    const tools = watcher.runs.filter((tool) => tool.startedAt >= startedAt);
    const extraction = tools.filter((tool) => tool.tool === "source-extractor");
    const solves = tools.filter((tool) => tool.tool === "solve-field");
    const others = tools.filter((tool) => tool.tool !== "source-extractor" && tool.tool !== "solve-field");
    if (extraction.length !== 1 || solves.length === 0 || marks.getAt === undefined || marks.downloadedAt === undefined)
      throw new Error(`unexpected course: ${JSON.stringify({ tools: tools.map((tool) => tool.tool), marks })}`);
    const extracted = extraction[0]!;
    const solvedAt = Math.max(...solves.map((tool) => tool.endedAt!));
    const otherMs = others.reduce((sum, tool) => sum + span(tool), 0);
    const stages: Record<string, number> = {
      "records read": marks.getAt - startedAt,
      "download from S3": marks.downloadedAt - marks.getAt,
      "header read": extracted.startedAt - marks.downloadedAt,
      extraction: span(extracted),
      solve: solvedAt - extracted.endedAt!,
      ...(others.length > 0 ? { [`other tools (${[...new Set(others.map((tool) => tool.tool))].join(", ")})`]: otherMs } : {}),
      "grading and write": endedAt - solvedAt - otherMs,
    };
    const lastSolve = solves.at(-1)!;
    return {
      totalMs: endedAt - startedAt,
      stages,
      solvePasses: solves.length,
      extractionCpu: extracted.childrenCpuAtEnd! - toolCpuBefore,
      solveCpu: lastSolve.childrenCpuAtEnd! - extracted.childrenCpuAtEnd!,
      toolCpu,
      ownCpu,
      outcome: `${frame.grade}, ${frame.stars} stars`,
    };
  }

  async function peerRound(): Promise<PeerRound> {
    // Each round starts from the frame and the tools' inputs, as Meridian's fresh work folder does.
    for (const entry of await fs.readdir(peerDir))
      if (entry !== "frame.fits" && !inputsCopied.includes(entry)) await fs.rm(path.join(peerDir, entry), { recursive: true, force: true });
    const timedShell = async (tool: string) => {
      const [started, cpuBefore] = [performance.now(), reapedChildrenCpuSeconds()];
      await run("sh", ["-c", shellLine(tool, peerCommands[tool]!)], { cwd: peerDir, maxBuffer: 64 * 1024 * 1024 });
      return [performance.now() - started, reapedChildrenCpuSeconds() - cpuBefore] as const;
    };
    const [extractionMs, extractionCpu] = await timedShell("source-extractor");
    const [solveMs, solveCpu] = await timedShell("solve-field");
    const wcs = peerCommands["solve-field"]![peerCommands["solve-field"]!.indexOf("--wcs") + 1]!;
    await fs.access(wcs).catch(() => {
      throw new Error("the bare solve-field found no solution");
    });
    return { extractionMs, solveMs, extractionCpu, solveCpu };
  }

  log("warm-up: Meridian, then the peer");
  const warmUp = await meridianRound(true);
  if (warmUp.solvePasses > 1) log(`Meridian's warm-up ran solve-field ${warmUp.solvePasses} times: the peer replays the first`);
  await peerRound();
  const meridianRuns: MeridianRound[] = [];
  const peerRuns: PeerRound[] = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    const peerFirst = round % 2 === 1;
    if (peerFirst) peerRuns.push(await peerRound());
    meridianRuns.push(await meridianRound(false));
    if (!peerFirst) peerRuns.push(await peerRound());
    const [ours, theirs] = [meridianRuns.at(-1)!, peerRuns.at(-1)!];
    log(`round ${round}: Meridian ${(ours.totalMs / 1000).toFixed(2)} s, peer ${((theirs.extractionMs + theirs.solveMs) / 1000).toFixed(2)} s`);
  }

  const seconds = (ms: number) => (ms / 1000).toFixed(2);
  const cpu = (values: number[]) => `${median(values).toFixed(2)} s`;
  const peerTotal = (each: PeerRound) => each.extractionMs + each.solveMs;
  const meridianMs = median(meridianRuns.map((each) => each.totalMs));
  const peerMs = median(peerRuns.map(peerTotal));
  const ratio = meridianMs / peerMs;
  const meridianCpu = median(meridianRuns.map((each) => each.toolCpu + each.ownCpu));
  const peerCpu = median(peerRuns.map((each) => each.extractionCpu + each.solveCpu));
  const stageNames = [...new Set(meridianRuns.flatMap((each) => Object.keys(each.stages)))];
  const list = (values: number[]) => values.map(seconds).join(", ");
  const stageCpu: Record<string, (each: MeridianRound) => number> = {
    extraction: (each) => each.extractionCpu,
    solve: (each) => each.solveCpu,
  };
  const stageRow = (name: string) => {
    const values = meridianRuns.map((each) => each.stages[name] ?? 0);
    const cpuOf = stageCpu[name];
    return `| Meridian: ${name} | ${seconds(median(values))} s | ${cpuOf ? cpu(meridianRuns.map(cpuOf)) : ""} | ${list(values)} |`;
  };
  const peerRow = (name: string, wall: (each: PeerRound) => number, cpuOf: (each: PeerRound) => number) =>
    `| peer: ${name} | ${seconds(median(peerRuns.map(wall)))} s | ${cpu(peerRuns.map(cpuOf))} | ${list(peerRuns.map(wall))} |`;
  const roundRatios = meridianRuns.map((each, index) => (each.totalMs / peerTotal(peerRuns[index]!)).toFixed(2)).join(", ");
  const quoted = (tool: string) => `\`${shellLine(tool, peerCommands[tool]!).replaceAll(peerDir, "$PEER")}\``;
  const text = [
    "# One frame analysed end to end against the bare tools",
    "",
    `\`node --import tsx bench/frame-analysis.ts --rounds ${ROUNDS} --size ${SIZE}\`, run on ${new Date().toISOString().slice(0, 10)}`,
    `(${os.cpus().length} cores, ${os.cpus()[0]?.model.trim()}, Node ${process.version}; load average at start ${loadAtStart}, at the end ${loadAverage()}).`,
    `The frame: ${SIZE}×${SIZE} 16-bit pixels (${(rendered.bytes.length / 1024 ** 2).toFixed(1)} MiB), the Pleiades at 3.0″ a pixel ` +
      `(${rendered.stars} catalog stars drawn). Meridian found ${warmUp.outcome}; solve-field ran ${warmUp.solvePasses}× in its warm-up.`,
    `One warm-up each, then ${ROUNDS} rounds taking turns; medians, each round's wall time in order. CPU: user + system seconds ` +
      "of the tools (and what they start), and for Meridian's total also of its own process (the embedded S3 serving the download included).",
    "",
    "| Run | Wall (median) | CPU (median) | Wall, rounds |",
    "|---|---:|---:|---|",
    `| **Meridian: analyseFrame, end to end** | **${seconds(meridianMs)} s** | ${meridianCpu.toFixed(2)} s | ` +
      `${list(meridianRuns.map((each) => each.totalMs))} |`,
    ...stageNames.map(stageRow),
    `| **peer: source-extractor + solve-field, bare** | **${seconds(peerMs)} s** | ${peerCpu.toFixed(2)} s | ${list(peerRuns.map(peerTotal))} |`,
    peerRow(
      "extraction",
      (each) => each.extractionMs,
      (each) => each.extractionCpu,
    ),
    peerRow(
      "solve",
      (each) => each.solveMs,
      (each) => each.solveCpu,
    ),
    "",
    `Meridian's own process used ${cpu(meridianRuns.map((each) => each.ownCpu))} of CPU per analysis (median). solve-field passes per analysis: ` +
      `${meridianRuns.map((each) => each.solvePasses).join(", ")}.`,
    "",
    `- Goal: within 1.15× of the bare tools' time: **${ratio <= 1.15 ? "met" : "missed"}** (${ratio.toFixed(2)}× in wall time; rounds ` +
      `${roundRatios}; ${(meridianCpu / peerCpu).toFixed(2)}× in CPU time).`,
    "",
    "The peer's commands ($PEER is its folder, holding the frame and copies of the files Meridian wrote for the tools):",
    "",
    `- ${quoted("source-extractor")}`,
    `- ${quoted("solve-field")}`,
    "",
  ].join("\n");
  await writeResult("frame-analysis.md", text);
  process.stdout.write(text);
}

/** A shell line running `tool` with `args`, each quoted for sh. */
function shellLine(tool: string, args: string[]): string {
  return [tool, ...args].map((arg) => `'${arg.replaceAll("'", `'\\''`)}'`).join(" ");
}

main()
  .catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(async () => {
    await server?.running.stop().catch(() => undefined);
    await removeTempDirs();
  });
