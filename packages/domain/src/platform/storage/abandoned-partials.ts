import { embeddedStoreDirectory, removeAbandonedPartials } from "@meridian/db";
import type { Deps } from "../deps";

/**
 * A `.partial` file of the embedded store untouched this long belongs to no write in progress. A
 * write adds to its file as its bytes arrive, and they arrive from this server's own S3 client,
 * which holds each part (8 MB) in memory before it sends it: a client pausing its upload pauses
 * no write to the store, and past UPLOAD_IDLE_TIMEOUT_MS (a minute by default) the upload is
 * dropped anyway. Seconds would do; an hour leaves a disk slower than any seen a wide margin.
 */
const ABANDONED_PARTIAL_AGE_MS = 3_600_000;

/**
 * The embedded store's part of the daily `abort_stale_uploads` job: removes the files a process
 * killed in the middle of a write left half-written (`.partial`) under DATA_DIR/objects, once
 * untouched for `ABANDONED_PARTIAL_AGE_MS` (or twice UPLOAD_IDLE_TIMEOUT_MS, when that is set
 * longer), so that the server and the worker, writing to the same folder, never take each other's
 * write in progress. Nothing to do with an external store (S3_ENDPOINT). Logs and gives how many
 * it removed and their bytes.
 */
export async function removeAbandonedStoreWrites(options: { deps: Deps }): Promise<{ removed: number; bytes: number }> {
  const { deps } = options;
  if (deps.env.S3_ENDPOINT) return { removed: 0, bytes: 0 };
  const ageMs = Math.max(ABANDONED_PARTIAL_AGE_MS, 2 * deps.env.UPLOAD_IDLE_TIMEOUT_MS);
  const directory = embeddedStoreDirectory(deps.env.DATA_DIR);
  const outcome = await removeAbandonedPartials({ directory, cutoff: new Date(deps.now().getTime() - ageMs) });
  if (outcome.removed > 0) deps.logger.info({ ...outcome, directory }, "removed files the embedded store's killed writes left half-written");
  return outcome;
}
