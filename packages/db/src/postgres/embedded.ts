import fs from "node:fs/promises";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { Logger } from "@meridian/config";
import { choosePort, newPassword, passwordFile, readPassword, rotateLegacyPassword, runningPort, SUPERUSER, writeSecret } from "./credentials";
import { bundledDistribution, clusterHome, DEFAULT_SYSTEM_DIR, exists, reachableDistribution, resolveRunAs, run, type RunAs } from "./placement";

export interface EmbeddedPostgres {
  url: string;
  /** True when this process started the server (false: it shares one another process started). */
  owned: boolean;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  dataDir: string;
  /** Preferred port; a taken one is replaced by a free one, recorded in DATA_DIR/postgres.port. */
  port: number;
  logger: Logger;
  /** As root: where binaries and clusters go that the PostgreSQL user could not reach otherwise. */
  systemDir?: string;
  /** The PostgreSQL distribution (bin/, lib/, share/); the bundled one unless given. */
  distribution?: string;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether the process has ended: gone, or a zombie its parent has yet to reap (Linux's /proc says so; elsewhere, gone only). */
async function hasEnded(pid: number): Promise<boolean> {
  if (!isAlive(pid)) return true;
  const stat = await fs.readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  const afterName = stat.lastIndexOf(")");
  return afterName >= 0 && stat[afterName + 2] === "Z";
}

async function readNumber(file: string): Promise<number | undefined> {
  const text = await fs.readFile(file, "utf8").catch(() => undefined);
  const value = Number(text?.split("\n")[0]?.trim());
  return Number.isInteger(value) && value > 0 ? value : undefined;
}

/**
 * Leftovers of starts that were killed while initialising: their process is gone. Its initdb may
 * not be (a killed parent leaves its child running), and while it still writes files a removal
 * can find a folder it emptied filled again (ENOTEMPTY): removed with retries, as long as that
 * initdb lasts; once its folder is gone it fails and ends.
 */
async function removeAbandonedInitialisations(home: string) {
  for (const name of await fs.readdir(home).catch(() => [] as string[])) {
    const match = /^postgres\.(?:init|pwfile)-(\d+)$/.exec(name);
    if (match && !isAlive(Number(match[1]))) await fs.rm(path.join(home, name), { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
  }
}

/**
 * Byte order for sorting, as C, but Unicode case folding: under plain C, `lower()`, ILIKE and
 * pg_trgm fold only ASCII, so searching "émile" missed "Émile". PostgreSQL's own provider (17+),
 * not the system's locales, so it behaves the same on every machine.
 */
const CLUSTER_LOCALE = ["--locale=C", "--locale-provider=builtin", "--builtin-locale=C.UTF-8"];

/**
 * Runs initdb into a temporary directory and renames it into place only once it succeeded, so
 * a start killed halfway leaves nothing that a later start could take for a cluster. The
 * superuser's password is random, kept in DATA_DIR (mode 600) before the cluster appears.
 */
async function initialiseCluster(options: { root: string; home: string; pgdata: string; bin: string; runAs: RunAs }) {
  const { root, home, pgdata, bin, runAs } = options;
  const temporary = path.join(home, `postgres.init-${process.pid}`);
  const pwfile = path.join(home, `postgres.pwfile-${process.pid}`);
  const password = newPassword();
  await fs.rm(temporary, { recursive: true, force: true });
  await fs.mkdir(temporary, { mode: 0o700 });
  if (runAs.uid !== undefined) await fs.chown(temporary, runAs.uid, runAs.gid!);
  await writeSecret(pwfile, password, runAs);
  try {
    const result = await run(
      path.join(bin, "initdb"),
      [`--pgdata=${temporary}`, "--auth=scram-sha-256", `--username=${SUPERUSER}`, `--pwfile=${pwfile}`, "--encoding=UTF8", ...CLUSTER_LOCALE],
      runAs,
    );
    if (result.code !== 0) throw new Error(`initdb failed: ${result.output}`);
  } catch (error) {
    await fs.rm(temporary, { recursive: true, force: true });
    throw error;
  } finally {
    await fs.rm(pwfile, { force: true });
  }
  await writeSecret(passwordFile(root), password);
  // A directory left by versions that created it before initdb ran.
  await fs.rm(pgdata, { recursive: true, force: true });
  await fs.rename(temporary, pgdata);
}

/**
 * Whether DATA_DIR already holds an embedded cluster (in it, or where its postgres.location
 * points), so a command that must not start an empty database can ask before starting one.
 */
export async function hasEmbeddedCluster(dataDir: string): Promise<boolean> {
  const root = path.resolve(dataDir);
  const recorded = (await fs.readFile(path.join(root, "postgres.location"), "utf8").catch(() => "")).trim();
  return exists(path.join(recorded || root, "postgres", "PG_VERSION"));
}

/**
 * Starts (or adopts) a real PostgreSQL server whose files live under `dataDir`.
 *
 * pg_ctl daemonizes the server in its own session, so a terminal Ctrl-C reaches only Node,
 * which then stops things in order. A server left behind by a killed owner is stopped and
 * started again; one whose owner is still alive (a sibling `start:worker`) is shared, and
 * whichever of them stops last stops it.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const { logger } = options;
  const root = path.resolve(options.dataDir);
  const ownerFile = path.join(root, "postgres.owner");
  const runAs = await resolveRunAs();
  const systemDir = options.systemDir ?? DEFAULT_SYSTEM_DIR;
  await fs.mkdir(root, { recursive: true });
  // The server runs as another user when we are root: it must be able to reach its directory.
  await fs.chmod(root, 0o755);
  const distribution = await reachableDistribution({ distribution: options.distribution ?? bundledDistribution, systemDir, runAs });
  const bin = path.join(distribution, "bin");
  const pgCtl = path.join(bin, "pg_ctl");
  const home = await clusterHome({ root, systemDir, runAs });
  const pgdata = path.join(home, "postgres");
  const logFile = path.join(home, "postgres.log");
  if (runAs.uid !== undefined) {
    await fs.writeFile(logFile, "", { flag: "a" });
    await fs.chown(logFile, runAs.uid, runAs.gid!);
  }

  await removeAbandonedInitialisations(home);
  if (!(await exists(path.join(pgdata, "PG_VERSION")))) {
    await initialiseCluster({ root, home, pgdata, bin, runAs });
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
  // pg_ctl's -w returns once the postmaster has removed its pid file, a moment before it exits: that moment is
  // waited for too (at most 10 s), so nothing of PostgreSQL outlives a stop (process-lifecycle.test.ts).
  const stopPostmaster = async () => {
    const postmaster = await readNumber(path.join(pgdata, "postmaster.pid"));
    await run(pgCtl, ["stop", "-D", pgdata, "-m", "fast", "-w", "-t", "30"], runAs);
    if (postmaster === undefined) return;
    for (let waited = 0; waited < 10_000 && !(await hasEnded(postmaster)); waited += 10) await delay(10);
  };
  let stopped = false;
  let url = "";
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
      await stopPostmaster();
      await fs.rm(ownerFile, { force: true });
    },
  });

  const urlFor = async (port: number) => {
    const password = (await readPassword(root)) ?? (await rotateLegacyPassword(root, port));
    return `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  };
  const status = await run(pgCtl, ["status", "-D", pgdata], runAs);
  if (status.code === 0) {
    const ownerPid = await readNumber(ownerFile);
    const ownerAlive = ownerPid !== undefined && ownerPid !== process.pid && isAlive(ownerPid);
    const others = await liveOtherUsers();
    if (ownerAlive || others.length > 0) {
      if (!ownerAlive) await fs.writeFile(ownerFile, `${others[0]}\n`);
      logger.info({ ownerPid: ownerAlive ? ownerPid : others[0] }, "sharing the embedded PostgreSQL started by another Meridian process");
      url = await urlFor((await runningPort(pgdata)) ?? options.port);
      await fs.writeFile(ownUserFile, "");
      return handle(false);
    }
    logger.warn("found a stale embedded PostgreSQL from an earlier run; restarting it");
    await stopPostmaster();
  }

  const port = await choosePort(root, options.port);
  if (port !== options.port)
    logger.warn({ preferred: options.port, port }, "the embedded PostgreSQL's port was taken; using another, recorded in DATA_DIR/postgres.port");
  const postgresOptions = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=200 -c shared_buffers=128MB`;
  const started = await run(pgCtl, ["start", "-D", pgdata, "-w", "-t", "60", "-l", logFile, "-o", postgresOptions], runAs);
  if (started.code !== 0) {
    const tail = await fs.readFile(logFile, "utf8").then(
      (text) => text.split("\n").slice(-20).join("\n"),
      () => "",
    );
    throw new Error(`could not start embedded PostgreSQL on port ${port}: ${started.output}\n${tail}`);
  }
  await fs.writeFile(ownerFile, `${process.pid}\n`);
  await fs.writeFile(ownUserFile, "");
  url = await urlFor(port);
  return handle(true);
}
