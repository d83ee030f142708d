import fs from "node:fs";
import path from "node:path";

/**
 * What a test run leaves behind when it is cut off: its PostgreSQL servers (pg_ctl starts them in
 * a session of their own, so a Ctrl-C to the run never reaches them) and its temporary folder.
 * Everything here is synchronous, because it runs inside signal handlers and `exit`, where the
 * process ends before any promise could settle.
 */

/** A run's folder in the system's temporary directory; every temporary folder of the run lies inside it. */
export const RUN_FOLDER_PREFIX = "meridian-test-";
const OWNER_FILE = "owner";
/** Folders that test runs made directly in the temporary directory before they had a run folder. */
const LEGACY_PREFIXES = [
  "meridian-server-",
  "meridian-drain-",
  "meridian-crash-worker-",
  "meridian-health-s3-",
  "meridian-two-",
  "meridian-backup-crash-",
  "meridian-killed-",
  "meridian-obs-",
  "meridian-lifecycle-",
  "meridian-e2e-",
];
/**
 * A folder without an owner may belong to a run of an older checkout that is still going (or one
 * writing its owner file right now): such folders are left alone for an hour, longer than any run.
 */
const UNOWNED_GRACE_MS = 3_600_000;

const pause = new Int32Array(new SharedArrayBuffer(4));
const sleepSync = (ms: number) => Atomics.wait(pause, 0, 0, ms);

/** The start time of a process in clock ticks since boot (field 22 of /proc/<pid>/stat): with the pid, who it is. */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
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

/**
 * Marks `folder` as this process's: a later run removes it only once this process is gone. `alsoRemove`
 * names folders outside it that go with it (vitest's own module cache, made before the run folder).
 */
export function claimRunFolder(folder: string, alsoRemove: string[] = []) {
  fs.writeFileSync(path.join(folder, OWNER_FILE), [`${process.pid} ${startTimeOf(process.pid) ?? ""}`, ...alsoRemove].join("\n") + "\n");
}

function foldersGoingWith(folder: string): string[] {
  try {
    return fs.readFileSync(path.join(folder, OWNER_FILE), "utf8").split("\n").slice(1).filter(path.isAbsolute);
  } catch {
    return [];
  }
}

function ownerAlive(folder: string): boolean | undefined {
  let text: string;
  try {
    text = fs.readFileSync(path.join(folder, OWNER_FILE), "utf8");
  } catch {
    return undefined;
  }
  const [pid, started] = (text.split("\n")[0] ?? "").trim().split(" ");
  const owner = Number(pid);
  if (!Number.isInteger(owner) || owner <= 0) return false;
  return started ? startTimeOf(owner) === started : isAlive(owner);
}

function commandLine(pid: number | string): string[] | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return undefined;
  }
}

function processIds(): string[] {
  try {
    return fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry));
  } catch {
    return [];
  }
}

/** A postmaster's data directory, from its command line (its data directory may be gone already). */
function dataDirectoryOf(argv: string[]): string | undefined {
  if (path.basename(argv[0] ?? "") !== "postgres" || !argv.includes("-D")) return undefined;
  const dataDir = argv[argv.indexOf("-D") + 1];
  return dataDir ? path.resolve(dataDir) : undefined;
}

/** PostgreSQL postmasters whose data directory lies under `folder`. */
export function postmastersUnder(folder: string): number[] {
  const prefix = path.resolve(folder) + path.sep;
  return processIds()
    .filter((pid) => dataDirectoryOf(commandLine(pid) ?? [])?.startsWith(prefix))
    .map(Number);
}

/**
 * pg_ctl starts PostgreSQL through `sh -c 'exec postgres -D …'` in a session of its own: a shell
 * caught before its exec would become a server nobody stops, so it is killed outright.
 */
function killStartingPostmasters(folder: string) {
  const marker = `-D "${path.resolve(folder)}${path.sep}`;
  for (const pid of processIds()) {
    const argv = commandLine(pid);
    if (argv && path.basename(argv[0] ?? "") === "sh" && argv.some((arg) => arg.includes(marker) && arg.includes("postgres"))) {
      try {
        process.kill(Number(pid), "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  }
}

/** Immediate shutdown (SIGQUIT) of each postmaster, waiting up to 10 s for it to go, then SIGKILL. */
function stopPostmasters(pids: number[]) {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGQUIT");
    } catch {
      // Already gone.
    }
  }
  const deadline = Date.now() + 10_000;
  while (pids.some(isAlive) && Date.now() < deadline) sleepSync(20);
  for (const pid of pids.filter(isAlive)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone in the meantime.
    }
  }
}

/** Stops every PostgreSQL under the run folder and removes it, with the folders that go with it. */
export function removeRunFolder(folder: string) {
  killStartingPostmasters(folder);
  stopPostmasters(postmastersUnder(folder));
  for (const other of foldersGoingWith(folder)) fs.rmSync(other, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  fs.rmSync(folder, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
}

function ageMs(folder: string): number {
  try {
    return Date.now() - fs.statSync(folder).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Cleans up after runs that ended without their own cleanup (`kill -9`, a cut-off CI job): run
 * folders whose owner is gone, with any PostgreSQL still running in them, PostgreSQL servers whose
 * run folder was removed under them, and the folders older runs left directly in `tmpDir`.
 */
export function sweepAbandonedRuns(tmpDir: string): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(tmpDir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const folder = path.join(tmpDir, name);
    if (name.startsWith(RUN_FOLDER_PREFIX)) {
      const alive = ownerAlive(folder);
      if (alive === true || (alive === undefined && ageMs(folder) < UNOWNED_GRACE_MS)) continue;
    } else if (!LEGACY_PREFIXES.some((prefix) => name.startsWith(prefix)) || ageMs(folder) < UNOWNED_GRACE_MS) continue;
    removeRunFolder(folder);
    removed.push(folder);
  }
  // A server started after its run's cleanup had already removed the folder.
  const orphans = postmastersUnder(tmpDir).filter((pid) => {
    const top = path.relative(tmpDir, dataDirectoryOf(commandLine(pid) ?? []) ?? tmpDir).split(path.sep)[0] ?? "";
    return top.startsWith(RUN_FOLDER_PREFIX) && !fs.existsSync(path.join(tmpDir, top));
  });
  stopPostmasters(orphans);
  return removed;
}
