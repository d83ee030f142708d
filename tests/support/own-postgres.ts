import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createLogger } from "@meridian/config";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "@meridian/db";
import { freePort } from "../../scripts/free-port";

export interface OwnPostgres {
  /** The folder its data and binaries live in, under the run's folder; a test may put more of its own there. */
  folder: string;
  /** The URL of its latest start (a restart takes another port if its own was taken meanwhile). */
  readonly url: string;
  stop(): Promise<void>;
  /** Starts it again on the same data, after `stop`. */
  start(): Promise<void>;
  /** Stops it (if running) and deletes its folder. */
  remove(): Promise<void>;
}

/**
 * A PostgreSQL of the calling file's own, for tests that stop it, restart it or fill its disk: the run's shared
 * one (global-setup) serves every other file, which must not suffer what these tests do to theirs.
 */
export async function startOwnPostgres(name: string): Promise<OwnPostgres> {
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), `meridian-${name}-`));
  // Run as root, PostgreSQL runs as its own user, which must reach the folders below.
  await fs.chmod(folder, 0o755);
  const logger = createLogger({ level: "silent", name });
  const options = { dataDir: path.join(folder, "data"), port: await freePort(), logger, systemDir: path.join(folder, "system") };
  let instance: EmbeddedPostgres | undefined;
  const remove = async () => {
    await instance?.stop();
    instance = undefined;
    await fs.rm(folder, { recursive: true, force: true });
  };
  let url: string;
  try {
    instance = await startEmbeddedPostgres(options);
    url = instance.url;
  } catch (error) {
    await remove();
    throw error;
  }
  return {
    folder,
    get url() {
      return url;
    },
    async stop() {
      await instance?.stop();
      instance = undefined;
    },
    async start() {
      instance = await startEmbeddedPostgres(options);
      url = instance.url;
    },
    remove,
  };
}
