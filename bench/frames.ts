/**
 * What the frame benchmarks (frame-analysis, frame-throughput, frame-memory) share: frames of real
 * sky, a Meridian server started in this process with an observatory's plugin key to upload with,
 * the child processes Meridian starts as seen through node:diagnostics_channel, and a process
 * tree's memory.
 */
import { execFileSync, type ChildProcess } from "node:child_process";
import diagnosticsChannel from "node:diagnostics_channel";
import fs from "node:fs";
import { createLogger, loadEnv } from "@meridian/config";
import { startServer } from "@meridian/server";
import { callJson, childrenOf, freePort, statusField } from "./lib.mjs";
// The renderer lives with the tests for now (it is moving to apps/simulator): this is the benchmarks' one import of it.
import { densestIndexFile, renderSkyFrame } from "../tests/support/sky-frame";

export const STAR_CATALOG = process.env.STAR_CATALOG_DIR ?? "/usr/share/astrometry";

/** Where the frames point: the Pleiades, which Debian's Tycho-2 indexes (10 to 19) solve at fields of a few degrees. */
const PLEIADES = { name: "M45", ra: 56.75, dec: 24.1167 };
/** 3.76 µm pixels behind a 258.5 mm lens: 3.0″ a pixel, written as XPIXSZ and FOCALLEN, which Meridian turns into the solver's scale hint. */
const PIXEL_MICRONS = 3.76;
const FOCAL_MM = 258.5;
const SCALE_ARCSEC = (206.264806 * PIXEL_MICRONS) / FOCAL_MM;

/**
 * A 16-bit frame of the Pleiades' sky, `width` × `height`, dithered by `seed` (a few arcminutes
 * and a rotation), with the header cards a capture program writes.
 */
export async function renderFrame(options: { width: number; height: number; seed: number }) {
  const { seed } = options;
  const pointing = { ra: 56.8 + ((seed * 7) % 5) * 0.02, dec: 24.05 + ((seed * 3) % 5) * 0.015 };
  const sexagesimal = (degrees: number, hours: boolean) => {
    const value = Math.abs(hours ? degrees / 15 : degrees);
    const [whole, minutes] = [Math.floor(value), Math.floor((value * 60) % 60)];
    const seconds = ((value * 3600) % 60).toFixed(1);
    return `${!hours && degrees < 0 ? "-" : hours ? "" : "+"}${String(whole).padStart(2, "0")} ${String(minutes).padStart(2, "0")} ${seconds}`;
  };
  const { bytes, stars } = await renderSkyFrame({
    ...pointing,
    width: options.width,
    height: options.height,
    scaleArcsec: SCALE_ARCSEC,
    rotationDeg: 37.5 + seed * 11,
    fwhmPixels: 3.2,
    seed,
    indexFile: await densestIndexFile(STAR_CATALOG),
    cards: [
      ["OBJECT", PLEIADES.name],
      ["DATE-OBS", "2026-11-28T21:04:05.123"],
      ["EXPTIME", 60],
      ["FILTER", "L"],
      ["XBINNING", 1],
      ["XPIXSZ", PIXEL_MICRONS],
      ["FOCALLEN", FOCAL_MM],
      ["OBJCTRA", sexagesimal(pointing.ra, true)],
      ["OBJCTDEC", sexagesimal(pointing.dec, false)],
      ["IMAGETYP", "Light Frame"],
    ],
  });
  return { bytes, stars, pointing };
}

/**
 * Meridian's HTTP server started in this process (MERIDIAN_ROLE=server: no worker, so nothing takes
 * the analysis jobs the uploads queue unless a benchmark does) over embedded PostgreSQL and S3 in
 * `dataDir`, with a server admin to sign in as.
 */
export async function startFrameServer(dataDir: string, settings: Record<string, string> = {}) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const admin = { email: "frames-bench@example.com", password: "frames bench password" };
  const env = loadEnv({
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    NODE_ENV: "production",
    MERIDIAN_ROLE: "server",
    HOST: "127.0.0.1",
    PORT: String(await freePort()),
    EMBEDDED_POSTGRES_PORT: String(await freePort()),
    EMBEDDED_S3_PORT: String(await freePort()),
    SECRETS_KEY: "bench secrets key",
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    API_WRITES_PER_MINUTE: "100000000",
    STAR_CATALOG_DIR: STAR_CATALOG,
    ...settings,
  });
  const running = await startServer({ env, logger: createLogger({ level: "warn" }), notifyAdmins: false });
  const { storage } = running.runtime.deps;
  /** The settings a worker process needs to share this server's database and store. */
  const workerEnv = (workerDataDir: string): Record<string, string> => ({
    DATA_DIR: workerDataDir,
    DATABASE_URL: running.runtime.databaseUrl,
    SECRETS_KEY: "bench secrets key",
    S3_ENDPOINT: storage.endpoint,
    S3_BUCKET: storage.bucket,
    S3_ACCESS_KEY_ID: storage.credentials.accessKeyId,
    S3_SECRET_ACCESS_KEY: storage.credentials.secretAccessKey,
    S3_FORCE_PATH_STYLE: "true",
    STAR_CATALOG_DIR: STAR_CATALOG,
  });
  return { running, admin, baseUrl: running.url, workerEnv };
}

export interface FrameRead {
  id: string;
  createdAt: string;
  frame: { status: string; analysedAt: string | null; grade: string | null; stars: number; solution: unknown; solveFailure: string | null } | null;
}

/** An observation of the Pleiades on a new observatory, with the observatory's plugin key: what a plugin uploads frames with. */
export async function pleiadesObservation(baseUrl: string, admin: { email: string; password: string }) {
  const { token } = (await callJson(baseUrl, "/api/v1/auth/login", null, admin)) as { token: string };
  const observatory = await callJson(baseUrl, "/observatories", token, { name: "Frames bench" });
  const project = await callJson(baseUrl, "/projects", token, { name: "Frames bench" });
  const { key } = (await callJson(baseUrl, `/observatories/${String(observatory.id)}/api-keys`, token, { name: "plugin" })) as { key: string };
  const observation = await callJson(baseUrl, "/observations", token, {
    name: "Pleiades",
    projectId: project.id,
    observatoryId: observatory.id,
    targets: [{ ...PLEIADES, exposures: [{ filter: "L", exposureSeconds: 60, count: 100, binning: 1 }] }],
  });
  const observationId = String(observation.id);
  return {
    token,
    observationId,
    /** The plugin's upload (`POST /observations/{id}/files` with its key), answered 201 with the file and its queued frame. */
    async upload(filename: string, bytes: Buffer): Promise<FrameRead> {
      const response = await fetch(`${baseUrl}/observations/${observationId}/files?filename=${encodeURIComponent(filename)}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/fits" },
        body: new Uint8Array(bytes),
      });
      const answer = (await response.json()) as FrameRead;
      if (response.status !== 201) throw new Error(`the upload answered ${response.status}: ${JSON.stringify(answer)}`);
      return answer;
    },
    /** The observation's files as its owner reads them. */
    async files(): Promise<FrameRead[]> {
      return ((await callJson(baseUrl, `/observations/${observationId}/files`, token)) as { items: FrameRead[] }).items;
    },
  };
}

export interface ToolRun {
  /** The program run (behind Meridian's `prlimit --cpu=N --`), e.g. `source-extractor`. */
  tool: string;
  /** Its arguments as Meridian passed them. */
  args: string[];
  startedAt: number;
  endedAt: number | undefined;
  /** reapedChildrenCpuSeconds() as it ended: with the tools run one after another, the difference from the one before is its CPU time. */
  childrenCpuAtEnd: number | undefined;
}

const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** User + system CPU seconds of this process's reaped children so far (cutime + cstime: each tool with what it started and waited for). */
export function reapedChildrenCpuSeconds(): number {
  const stat = fs.readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS;
}

/**
 * Every child process this process starts while watching, with its start and end (performance.now()):
 * node:diagnostics_channel's `child_process` channel tells of each as it is made. `onSpawn` is
 * called once a child runs, its arguments known.
 */
export function watchChildProcesses(onSpawn?: (run: ToolRun) => void) {
  const runs: ToolRun[] = [];
  const created = (message: unknown) => {
    const child = (message as { process: ChildProcess }).process;
    const run: ToolRun = { tool: "", args: [], startedAt: performance.now(), endedAt: undefined, childrenCpuAtEnd: undefined };
    runs.push(run);
    const learnArgs = () => {
      const argv = child.spawnargs ?? [];
      // Meridian's runTool: prlimit --cpu=N -- <tool> <args...>
      const separator = argv.indexOf("--");
      const [tool, ...args] = argv[0]?.endsWith("prlimit") && separator >= 0 ? argv.slice(separator + 1) : argv;
      run.tool = tool ?? "";
      run.args = args;
    };
    child.once("spawn", () => {
      learnArgs();
      onSpawn?.(run);
    });
    // 'exit' comes once the child is reaped (its CPU counted), before its output streams close.
    child.once("exit", () => (run.childrenCpuAtEnd = reapedChildrenCpuSeconds()));
    child.once("close", () => {
      run.endedAt = performance.now();
      if (!run.tool) learnArgs();
    });
  };
  diagnosticsChannel.subscribe("child_process", created);
  return {
    runs,
    stop: () => diagnosticsChannel.unsubscribe("child_process", created),
  };
}

/** Every descendant of `pid` (children, their children, ...). */
export function descendantsOf(pid: number): number[] {
  const found: number[] = [];
  for (const child of childrenOf(pid)) found.push(child, ...descendantsOf(child));
  return found;
}

/** A process's program by name (the module for `python3 -m`), or "" once it is gone. */
export function commandOf(pid: number): string {
  try {
    const argv = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    const program = argv[0]!.split("/").at(-1)!;
    return program.startsWith("python") && argv[1] === "-m" ? `${program} -m ${argv[2]}` : program;
  } catch {
    return "";
  }
}

/** VmRSS of each of `pids` in bytes (0 for one already gone), and their sum. */
export function rssOf(pids: number[]) {
  const each = pids.map((pid) => ({ pid, command: commandOf(pid), rss: statusField(pid, "VmRSS") ?? 0 }));
  return { each, total: each.reduce((sum, process) => sum + process.rss, 0) };
}
