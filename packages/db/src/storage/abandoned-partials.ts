import type { Dir } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";

/**
 * The name the embedded store writes a file under before renaming it into place: its place, a
 * dot, 12 hex digits and `.partial` (partialPathOf in patches/s3rver@3.7.1.patch).
 */
const PARTIAL_FILE = /\.[0-9a-f]{12}\.partial$/;

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === "ENOENT";

/** Every file under `folder`, depth first; a folder removed while it is walked (an upload aborted) is skipped. */
async function* filesUnder(folder: string): AsyncGenerator<{ filePath: string; name: string }> {
  let dir: Dir;
  try {
    dir = await fs.opendir(folder);
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  for await (const entry of dir) {
    const entryPath = path.join(folder, entry.name);
    if (entry.isDirectory()) yield* filesUnder(entryPath);
    else if (entry.isFile()) yield { filePath: entryPath, name: entry.name };
  }
}

/**
 * Removes the files the embedded store under `directory` began writing and never renamed into
 * place (`.partial`) whose last write was before `cutoff`: a write that fails removes its own, so
 * these are what a process killed in the middle of a write left. A write in progress adds to its
 * file all along, so a `cutoff` far enough back never takes one; the store's other files are left
 * alone. Gives how many were removed and their bytes.
 */
export async function removeAbandonedPartials(options: { directory: string; cutoff: Date }): Promise<{ removed: number; bytes: number }> {
  let removed = 0;
  let bytes = 0;
  for await (const { filePath, name } of filesUnder(options.directory)) {
    if (!PARTIAL_FILE.test(name)) continue;
    try {
      const stats = await fs.stat(filePath);
      if (stats.mtimeMs >= options.cutoff.getTime()) continue;
      await fs.unlink(filePath);
      removed += 1;
      bytes += stats.size;
    } catch (error) {
      // Renamed into place or removed by its writer meanwhile: not abandoned after all.
      if (!isMissing(error)) throw error;
    }
  }
  return { removed, bytes };
}
