import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { freePort, makeTempDir } from "./lib.mjs";

const run = promisify(execFile);
const BIN = "/usr/lib/postgresql/15/bin";

/**
 * A throw-away PostgreSQL 15 server from Debian's `postgresql-15` package, so `pg_dump` and
 * `pg_restore` (15) can run against the very database Meridian uses (pg_dump refuses a newer
 * server, and the embedded server is 18). As root it runs as the `postgres` user, as PostgreSQL requires.
 */
export async function startPostgres15(): Promise<{ url: string; stop(): Promise<void> }> {
  try {
    await fs.access(path.join(BIN, "initdb"));
  } catch {
    throw new Error("PostgreSQL 15 is not installed: apt-get install -y postgresql-15, or set DATABASE_URL to a PostgreSQL 15 server");
  }
  const dir = await makeTempDir("pg15");
  const asPostgres = process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--"] : [];
  if (asPostgres.length > 0) await run("chown", ["postgres", dir]);
  const exec = (command: string, args: string[]) =>
    asPostgres.length > 0 ? run(asPostgres[0]!, [...asPostgres.slice(1), path.join(BIN, command), ...args]) : run(path.join(BIN, command), args);
  const data = path.join(dir, "data");
  await exec("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_wal_size=4GB -c shared_buffers=256MB`;
  await exec("pg_ctl", ["-D", data, "-o", options, "-l", path.join(dir, "log"), "-w", "start"]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await exec("pg_ctl", ["-D", data, "-m", "immediate", "stop"]).catch(() => undefined);
    },
  };
}
