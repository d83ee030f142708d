import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/** Where analyses work: one folder each, named by the process that made it, so that a start can tell a dead process's from a live one's. */
const frameWorkRoot = () => path.join(os.tmpdir(), "meridian-frame-analysis");

/** A fresh folder for one analysis (mode 700): `<pid>-<random>`. */
export async function makeWorkFolder(): Promise<string> {
  await fs.mkdir(frameWorkRoot(), { recursive: true, mode: 0o700 });
  return fs.mkdtemp(path.join(frameWorkRoot(), `${process.pid}-`));
}

export const removeWorkFolder = (folder: string) => fs.rm(folder, { recursive: true, force: true, maxRetries: 3 });

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, under another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes what analyses of killed processes left: every folder whose process is gone (a worker
 * killed mid-analysis never ran its own removal). Folders of live processes, this one's and other
 * workers' on the same machine, are theirs to remove. Answers the folders removed.
 */
export async function removeLeftoverWorkFolders(): Promise<string[]> {
  const entries = await fs.readdir(frameWorkRoot()).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const entry of entries) {
    const pid = Number(/^(\d+)-/.exec(entry)?.[1]);
    if (Number.isInteger(pid) && pid > 0 && (pid === process.pid || processAlive(pid))) continue;
    await removeWorkFolder(path.join(frameWorkRoot(), entry));
    removed.push(entry);
  }
  return removed;
}
