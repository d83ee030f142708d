import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, it, type TestContext } from "vitest";
import { postmastersUnder, removeRunFolder, RUN_FOLDER_PREFIX } from "../support/run-leftovers";
import { until } from "../support/until";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const vitestEntry = path.join(repoRoot, "node_modules/vitest/vitest.mjs");
const fixtureConfig = path.join(repoRoot, "tests/harness/interrupt/vitest.config.ts");
// The cases run side by side (below), so each run waits for its state beside the others' on two cores.
const RUN_START = { timeoutMs: 180_000, intervalMs: 20 };

// Each run gets a temporary directory of its own (its TMPDIR), so what it leaves can be read off.
const tmpDirs: string[] = [];
afterAll(() => {
  for (const dir of tmpDirs) removeRunFolder(dir);
});

/** Whatever of its own runs a case leaves going (it failed before it interrupted them) is killed as it ends, not its neighbours'. */
function killLeftOnFinish(onTestFinished: TestContext["onTestFinished"]) {
  const children: ChildProcess[] = [];
  onTestFinished(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGKILL");
  });
  return children;
}

function newTmpDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "interrupted-runs-"));
  fs.chmodSync(dir, 0o755);
  tmpDirs.push(dir);
  return dir;
}

/** `vitest run` of the fixture, as a developer starts it: its own process group, which Ctrl-C signals whole. */
function startRun(tmpDir: string, children: ChildProcess[]) {
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

async function interruptAt(moment: "setup" | "database" | "tests", signal: NodeJS.Signals, children: ChildProcess[]) {
  const tmpDir = newTmpDir();
  const run = startRun(tmpDir, children);
  if (moment === "setup") await until("the run's folder", async () => runFolders(tmpDir).length > 0, RUN_START);
  if (moment === "database") await until("the run's PostgreSQL", async () => postmastersUnder(tmpDir).length > 0, RUN_START);
  if (moment === "tests") await until(`the fixture's servers:\n${run.output()}`, async () => fs.existsSync(run.ready), RUN_START);
  process.kill(-run.child.pid!, signal);
  const code = await run.exited;
  return { code, left: leftovers(tmpDir), output: run.output() };
}

// Each case starts whole vitest runs (PostgreSQL, S3, a test file's own server) and waits for their
// states; on a loaded 2-core machine that outlasts the default 30 s, so the waits above bound it.
// The cases share nothing (each run its own TMPDIR, ports and PostgreSQL servers, and leftovers are
// read off that TMPDIR alone), so they run side by side: one after another, most of the file's
// time went to waiting on one run's processes at a time.
describe("an interrupted test run", { timeout: 600_000, concurrent: true }, () => {
  it("leaves no PostgreSQL and no folder when Ctrl-C comes while its global setup starts", async ({ expect, onTestFinished }) => {
    const { left } = await interruptAt("setup", "SIGINT", killLeftOnFinish(onTestFinished));
    expect(left).toEqual(nothingLeft);
  });

  it("leaves no PostgreSQL and no folder when Ctrl-C comes once its PostgreSQL runs", async ({ expect, onTestFinished }) => {
    const { left } = await interruptAt("database", "SIGINT", killLeftOnFinish(onTestFinished));
    expect(left).toEqual(nothingLeft);
  });

  it("leaves neither the run's servers nor a test file's own PostgreSQL on Ctrl-C or SIGTERM during the tests", async ({ expect, onTestFinished }) => {
    // Two runs of their own (each its TMPDIR, ports and PostgreSQL servers): side by side.
    const children = killLeftOnFinish(onTestFinished);
    const [interrupted, terminated] = await Promise.all([interruptAt("tests", "SIGINT", children), interruptAt("tests", "SIGTERM", children)]);
    expect(interrupted.code).not.toBe(0);
    expect(interrupted.left).toEqual(nothingLeft);
    expect(terminated.code).not.toBe(0);
    expect(terminated.left).toEqual(nothingLeft);
  });

  it("cleans up at its next start what a run killed with SIGKILL left", async ({ expect, onTestFinished }) => {
    const children = killLeftOnFinish(onTestFinished);
    const tmpDir = newTmpDir();
    const killed = startRun(tmpDir, children);
    await until("the fixture's servers", async () => fs.existsSync(killed.ready), RUN_START);
    process.kill(-killed.child.pid!, "SIGKILL");
    await killed.exited;
    const [abandoned] = runFolders(tmpDir);
    const abandonedServers = postmastersUnder(tmpDir);
    // The killed run's PostgreSQL and the test file's own: left running, as a kill -9 leaves them.
    expect(abandonedServers.length).toBeGreaterThanOrEqual(2);

    const next = startRun(tmpDir, children);
    await until("the next run's servers", async () => fs.existsSync(next.ready), RUN_START);
    expect(runFolders(tmpDir)).not.toContain(abandoned);
    expect(postmastersUnder(tmpDir).filter((pid) => abandonedServers.includes(pid))).toEqual([]);
    process.kill(-next.child.pid!, "SIGINT");
    await next.exited;
    expect(leftovers(tmpDir)).toEqual(nothingLeft);
  });
});
