import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface Tmpfs {
  /** The mount point: a folder of its own, `megabytes` large. */
  dir: string;
  /** Unmounts (lazily: a process still holding a file there does not keep it mounted) and removes the folder; a second call does nothing. */
  unmount(): Promise<void>;
}

/**
 * A small disk: a tmpfs of `megabytes` mounted on a new folder, owned by `owner` when given (a
 * PostgreSQL server's user for a tablespace). Needs root, as in CI. A refused mount throws with
 * mount's own words: a test of a full disk that cannot make one must fail, never pass unseen.
 */
export async function mountTmpfs(options: { megabytes: number; owner?: { uid: number; gid: number } }): Promise<Tmpfs> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-tmpfs-"));
  const owner = options.owner ? `,uid=${options.owner.uid},gid=${options.owner.gid},mode=0700` : ",mode=0755";
  try {
    await run("mount", ["-t", "tmpfs", "-o", `size=${options.megabytes}m${owner}`, "tmpfs", dir]);
  } catch (error) {
    await fs.rmdir(dir).catch(() => undefined);
    throw new Error(`could not mount a ${options.megabytes} MB tmpfs on ${dir} (this test needs root): ${(error as { stderr?: string }).stderr ?? error}`, {
      cause: error,
    });
  }
  let mounted = true;
  return {
    dir,
    async unmount() {
      if (!mounted) return;
      mounted = false;
      await run("umount", ["--lazy", dir]);
      await fs.rmdir(dir);
    },
  };
}
