import { tables, type Executor } from "@meridian/db";
import { and, asc, count, eq, gt, lt, min, sql } from "drizzle-orm";
import { AppError, isAppError } from "../errors";
import type { InTransaction } from "../transaction";

export interface RateLimitRule {
  bucket: string;
  key: string;
  limit: number;
  windowMs: number;
}

/** Refuses with 429 and Retry-After once `limit` events of this key fall inside the window. */
export async function assertWithinRateLimit(options: RateLimitRule & { db: Executor; now: Date }): Promise<void> {
  const { db, now, ...rule } = options;
  const since = new Date(now.getTime() - rule.windowMs);
  const { rateLimitEvents: events } = tables;
  const [row] = await db
    .select({ hits: count(), oldest: min(events.at) })
    .from(events)
    .where(and(eq(events.bucket, rule.bucket), eq(events.key, rule.key), gt(events.at, since)));
  if (!row || row.hits < rule.limit) return;
  // The oldest event leaves the window first; once it has, one more attempt is allowed.
  const [nth] = await db
    .select({ at: events.at })
    .from(events)
    .where(and(eq(events.bucket, rule.bucket), eq(events.key, rule.key), gt(events.at, since)))
    .orderBy(asc(events.at))
    .offset(row.hits - rule.limit)
    .limit(1);
  const freeAt = (nth?.at ?? now).getTime() + rule.windowMs;
  const retryAfter = Math.max(1, Math.ceil((freeAt - now.getTime()) / 1000));
  throw new AppError("RATE_LIMITED", "Too many attempts; try again later", { retryAfterSeconds: retryAfter });
}

/** "40 seconds", "1 minute", "12 minutes": how long a refusal asks to wait. */
function waitWords(options: { seconds: number }) {
  const { seconds } = options;
  if (seconds < 90) return `${seconds} second${seconds === 1 ? "" : "s"}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}

export interface AttemptRule extends RateLimitRule {
  /** The refusal's message, given how long to wait in words ("40 seconds"). */
  refusal: (wait: string) => string;
}

/**
 * Counts one attempt against every rule, or refuses with 429 RATE_LIMITED and Retry-After once one
 * of them already holds `limit` attempts in its window. The attempts of one key take turns (a
 * transaction lock per bucket and key, taken in one order), so requests sent at once cannot together
 * pass a limit; a refused attempt counts nothing, so a key keeps at most `limit` events a window
 * however hard it is tried, and the hourly prune removes them a day later. Written in the caller's
 * transaction, before the work it pays for (a password hash) begins.
 */
export async function countAttempt(options: { t: Pick<InTransaction, "tx" | "now">; rules: AttemptRule[] }): Promise<void> {
  const { t } = options;
  const now = t.now();
  const rules = [...options.rules].sort((a, b) => (`${a.bucket}:${a.key}` < `${b.bucket}:${b.key}` ? -1 : 1));
  for (const rule of rules) {
    await t.tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`meridian:rate:${rule.bucket}:${rule.key}`}))`);
    try {
      await assertWithinRateLimit({ db: t.tx, now, ...rule });
    } catch (error) {
      if (!isAppError(error) || error.code !== "RATE_LIMITED") throw error;
      const retryAfterSeconds = error.retryAfterSeconds ?? 1;
      throw new AppError("RATE_LIMITED", rule.refusal(waitWords({ seconds: retryAfterSeconds })), { retryAfterSeconds });
    }
  }
  if (rules.length > 0) await t.tx.insert(tables.rateLimitEvents).values(rules.map(({ bucket, key }) => ({ bucket, key, at: now })));
}

export async function recordRateLimitEvent(options: { db: Executor; now: Date; bucket: string; key: string }): Promise<void> {
  const { bucket, key } = options;
  await options.db.insert(tables.rateLimitEvents).values({ bucket, key, at: options.now });
}

export async function clearRateLimit(options: { db: Executor; bucket: string; key: string }): Promise<void> {
  const { rateLimitEvents } = tables;
  await options.db.delete(rateLimitEvents).where(and(eq(rateLimitEvents.bucket, options.bucket), eq(rateLimitEvents.key, options.key)));
}

/** Removes events older than the longest window; run by a periodic job. */
export async function pruneRateLimitEvents(options: { db: Executor; now: Date; olderThanMs?: number }): Promise<number> {
  const { now, olderThanMs = 24 * 3600_000 } = options;
  const removed = await options.db
    .delete(tables.rateLimitEvents)
    .where(lt(tables.rateLimitEvents.at, new Date(now.getTime() - olderThanMs)))
    .returning({ id: tables.rateLimitEvents.id });
  return removed.length;
}
