import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, it } from "vitest";
import { freePort } from "../../scripts/free-port";
import { isRunning, spawnEntry, terminate, waitForOutput, type NodeProcess } from "../support/node-process";
import { until } from "../support/until";

/**
 * A first start killed while PostgreSQL is being initialised must not leave a cluster that
 * later starts take for a ready one. The real entry point is killed (SIGKILL) at three moments,
 * each found by watching the data folder, then started normally.
 */
const spawned: NodeProcess[] = [];
const folders: string[] = [];

afterAll(async () => {
  for (const proc of spawned) if (isRunning(proc)) proc.child.kill("SIGKILL");
  await Promise.all(spawned.map((proc) => proc.exited));
  for (const folder of folders) await fs.rm(folder, { recursive: true, force: true });
}, 60_000);

const exists = (file: string) =>
  fs.stat(file).then(
    () => true,
    () => false,
  );
const initFolder = async (dataDir: string) => (await fs.readdir(dataDir).catch(() => [] as string[])).find((name) => name.startsWith("postgres.init-"));

const moments: Array<[string, (dataDir: string) => Promise<boolean>]> = [
  ["as initdb starts (its temporary folder exists)", async (dataDir) => (await initFolder(dataDir)) !== undefined],
  [
    "halfway through initdb (control file written, catalog not finished)",
    async (dataDir) => {
      const folder = await initFolder(dataDir);
      return folder !== undefined && (await exists(path.join(dataDir, folder, "global", "pg_control")));
    },
  ],
  ["right after initialisation, before the server listens", async (dataDir) => exists(path.join(dataDir, "postgres", "PG_VERSION"))],
];

// The cases share nothing (each its folder and ports), so they run side by side: one after another, the file waited on
// one initdb at a time.
describe("a first start killed during PostgreSQL's initialisation", { concurrent: true }, () => {
  it.for(moments)("killed %s, the next start serves", async ([, reached], { expect }) => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-killed-"));
    await fs.chmod(root, 0o755);
    folders.push(root);
    const dataDir = path.join(root, "data");
    const env = {
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      EMBEDDED_POSTGRES_PORT: String(await freePort()),
      WEB_DIST_DIR: path.join(root, "no-web"),
    };

    const first = spawnEntry("server", env, "first start");
    spawned.push(first);
    await until("the moment to kill the first start", async () => (await reached(dataDir)) || !isRunning(first), { intervalMs: 2, timeoutMs: 90_000 });
    first.child.kill("SIGKILL");
    await first.exited;

    const second = spawnEntry("server", env, "second start");
    spawned.push(second);
    await waitForOutput(second, /listening on/);
    const health = await fetch(`http://127.0.0.1:${env.PORT}/api/health`);
    expect(health.status).toBe(200);
    expect(await initFolder(dataDir)).toBeUndefined();
    expect(await terminate(second)).toEqual({ code: 0, signal: null });
  });
});
