import { sql } from "drizzle-orm";
import { assertWithinRateLimit, recordRateLimitEvent } from "../auth/rate-limit";
import { AppError, isAppError } from "../errors";
import type { InTransaction } from "../transaction";

const HOUR_MS = 3_600_000;

/** "40 seconds", "1 minute", "12 minutes": how long a refusal asks to wait. */
function waitWords(seconds: number) {
  if (seconds < 90) return `${seconds} second${seconds === 1 ? "" : "s"}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}

/**
 * Counts one more message a user makes the server send (`bucket`, per user), or refuses with 429
 * RATE_LIMITED and Retry-After once `limit` of them fall in the last hour; `what` names them in the
 * refusal ("test notifications"). The user's calls of one bucket take turns (a transaction lock), so
 * requests sent at once cannot together pass the limit; the count is written in the caller's
 * transaction, so a send that is rolled back does not count.
 */
export async function countSendWithinHourlyLimit(options: {
  t: Pick<InTransaction, "tx" | "now">;
  bucket: string;
  userId: string;
  limit: number;
  what: string;
}): Promise<void> {
  const { t, bucket, userId, limit, what } = options;
  const now = t.now();
  await t.tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`meridian:rate:${bucket}:${userId}`}))`);
  try {
    await assertWithinRateLimit({ db: t.tx, now, bucket, key: userId, limit, windowMs: HOUR_MS });
  } catch (error) {
    if (!isAppError(error) || error.code !== "RATE_LIMITED") throw error;
    const retryAfterSeconds = error.retryAfterSeconds ?? 1;
    throw new AppError("RATE_LIMITED", `At most ${limit} ${what} an hour; try again in ${waitWords(retryAfterSeconds)}`, { retryAfterSeconds });
  }
  await recordRateLimitEvent({ db: t.tx, now, bucket, key: userId });
}
