import { countAttempt } from "../../platform/rate-limit";
import type { InTransaction } from "../../platform/transaction";

const HOUR_MS = 3_600_000;

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
  const refusal = (wait: string) => `At most ${limit} ${what} an hour; try again in ${wait}`;
  await countAttempt({ t, rules: [{ bucket, key: userId, limit, windowMs: HOUR_MS, refusal }] });
}
