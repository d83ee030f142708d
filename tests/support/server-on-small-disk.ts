import fs from "node:fs/promises";
import path from "node:path";
import { freePort } from "../../scripts/free-port";
import { spawnEntry, waitForOutput, type NodeProcess } from "./node-process";
import { sharedProcessEnv, type TestServer } from "./test-server";
import { mountTmpfs, type Tmpfs } from "./tmpfs";

const MB = 1024 * 1024;

/**
 * A server process (MERIDIAN_ROLE=server) over `setup`'s database whose DATA_DIR is a tmpfs of
 * `megabytes`, `ballastMegabytes` of it taken by a file the test may remove to free space. Without
 * S3_ENDPOINT it runs its own embedded object store in DATA_DIR/objects, on that small disk.
 * The caller terminates the process and unmounts the disk.
 */
export async function serverOnSmallDisk(setup: TestServer, options: { megabytes: number; ballastMegabytes: number }) {
  const disk: Tmpfs = await mountTmpfs({ megabytes: options.megabytes });
  await fs.writeFile(path.join(disk.dir, "ballast"), Buffer.alloc(options.ballastMegabytes * MB, 1));
  const port = await freePort();
  const { S3_ENDPOINT: _endpoint, S3_ACCESS_KEY_ID: _id, S3_SECRET_ACCESS_KEY: _secret, ...env } = sharedProcessEnv(setup, disk.dir);
  const proc: NodeProcess = spawnEntry(
    "server",
    { ...env, NODE_ENV: "test", PORT: String(port), MERIDIAN_ROLE: "server", WEB_DIST_DIR: path.join(disk.dir, "no-web") },
    "server-on-full-disk",
  );
  await waitForOutput(proc, /listening on/, 60_000);
  return { disk, proc, url: `http://127.0.0.1:${port}` };
}
