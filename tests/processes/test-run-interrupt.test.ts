import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { postmastersUnder, removeRunFolder, RUN_FOLDER_PREFIX } from "../support/run-leftovers";
import { until } from "../support/until";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const vitestEntry = path.join(repoRoot, "node_modules/vitest/vitest.mjs");
const fixtureConfig = path.join(repoRoot, "tests/harness/interrupt/vitest.config.ts");
const RUN_START = { timeoutMs: 120_000, intervalMs: 20 };

// Each run gets a temporary directory of its own (its TMPDIR), so what it leaves can be read off.
const tmpDirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGKILL");
});
afterAll(() => {
  for (const dir of tmpDirs) removeRunFolder(dir);
});

function newTmpDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "interrupted-runs-"));
  fs.chmodSync(dir, 0o755);
  tmpDirs.push(dir);
  return dir;
}

/** `vitest run` of the fixture, as a developer starts it: its own process group, which Ctrl-C signals whole. */
function startRun(tmpDir: string) {
  const ready = path.join(tmpDir, `..`, `${path.basename(tmpDir)}.ready`);
  fs.rmSync(ready, { force: true });
  const child = spawn(process.execPath, [vitestEntry, "run", "--config", fixtureConfig], {
    cwd: repoRoot,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: tmpDir, MERIDIAN_FIXTURE_READY: ready, CI: "true" },
  });
  children.push(child);
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, ready, exited, output: () => output };
}

const runFolders = (tmpDir: string) => fs.readdirSync(tmpDir).filter((name) => name.startsWith(RUN_FOLDER_PREFIX));
const leftovers = (tmpDir: string) => ({ folders: fs.readdirSync(tmpDir), servers: postmastersUnder(tmpDir) });
const nothingLeft = { folders: [], servers: [] };

async function interruptAt(moment: "setup" | "database" | "tests", signal: NodeJS.Signals) {
  const tmpDir = newTmpDir();
  const run = startRun(tmpDir);
  if (moment === "setup") await until("the run's folder", async () => runFolders(tmpDir).length > 0, RUN_START);
  if (moment === "database") await until("the run's PostgreSQL", async () => postmastersUnder(tmpDir).length > 0, RUN_START);
  if (moment === "tests") await until(`the fixture's servers:\n${run.output()}`, async () => fs.existsSync(run.ready), RUN_START);
  process.kill(-run.child.pid!, signal);
  const code = await run.exited;
  return { code, left: leftovers(tmpDir), output: run.output() };
}

// Each case starts whole vitest runs (PostgreSQL, S3, a test file's own server) and waits for their
// states; on a loaded 2-core machine that outlasts the default 30 s, so the waits above bound it.
describe("an interrupted test run", { timeout: 600_000 }, () => {
  it("leaves no PostgreSQL and no folder when Ctrl-C comes while its global setup starts", async () => {
    const { left } = await interruptAt("setup", "SIGINT");
    expect(left).toEqual(nothingLeft);
  });

  it("leaves no PostgreSQL and no folder when Ctrl-C comes once its PostgreSQL runs", async () => {
    const { left } = await interruptAt("database", "SIGINT");
    expect(left).toEqual(nothingLeft);
  });

  it("leaves neither the run's servers nor a test file's own PostgreSQL on Ctrl-C or SIGTERM during the tests", async () => {
    // Two runs of their own (each its TMPDIR, ports and PostgreSQL servers): side by side.
    const [interrupted, terminated] = await Promise.all([interruptAt("tests", "SIGINT"), interruptAt("tests", "SIGTERM")]);
    expect(interrupted.code).not.toBe(0);
    expect(interrupted.left).toEqual(nothingLeft);
    expect(terminated.code).not.toBe(0);
    expect(terminated.left).toEqual(nothingLeft);
  });

  it("cleans up at its next start what a run killed with SIGKILL left", async () => {
    const tmpDir = newTmpDir();
    const killed = startRun(tmpDir);
    await until("the fixture's servers", async () => fs.existsSync(killed.ready), RUN_START);
    process.kill(-killed.child.pid!, "SIGKILL");
    await killed.exited;
    const [abandoned] = runFolders(tmpDir);
    const abandonedServers = postmastersUnder(tmpDir);
    // The killed run's PostgreSQL and the test file's own: left running, as a kill -9 leaves them.
    expect(abandonedServers.length).toBeGreaterThanOrEqual(2);

    const next = startRun(tmpDir);
    await until("the next run's servers", async () => fs.existsSync(next.ready), RUN_START);
    expect(runFolders(tmpDir)).not.toContain(abandoned);
    expect(postmastersUnder(tmpDir).filter((pid) => abandonedServers.includes(pid))).toEqual([]);
    process.kill(-next.child.pid!, "SIGINT");
    await next.exited;
    expect(leftovers(tmpDir)).toEqual(nothingLeft);
  });
});
