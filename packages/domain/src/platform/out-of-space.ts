import { isStorageFull } from "@meridian/db";
import { AppError } from "./errors";
import { isDatabaseOutOfSpace } from "./postgres-errors";

/** How long a client is asked to wait before sending a write again that found a disk full: space is freed by people, not in seconds. */
const OUT_OF_SPACE_RETRY_AFTER_SECONDS = 60;

/**
 * The 507 INSUFFICIENT_STORAGE a write gets when the disk under the database or object storage
 * has no room for it (nothing of it was kept; the same write succeeds once space is freed), or
 * undefined for any other error.
 */
export function outOfSpaceError(options: { error: unknown; what?: string }): AppError | undefined {
  const { error, what = "this change" } = options;
  const refusal = { retryAfterSeconds: OUT_OF_SPACE_RETRY_AFTER_SECONDS, cause: error };
  if (isDatabaseOutOfSpace(error))
    return new AppError("INSUFFICIENT_STORAGE", `The database has no room left for ${what}; nothing of it was kept. Try again once space is freed`, refusal);
  if (isStorageFull(error))
    return new AppError("INSUFFICIENT_STORAGE", `Object storage has no room left for ${what}; nothing of it was kept. Try again once space is freed`, refusal);
  return undefined;
}
