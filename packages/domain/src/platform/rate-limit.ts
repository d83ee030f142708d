import { tables, type Executor } from "@meridian/db";
import { and, asc, count, eq, gt, lt, min, sql } from "drizzle-orm";
import { AppError, isAppError } from "./errors";
import type { InTransaction } from "./transaction";

export interface RateLimitRule {
  bucket: string;
  key: string;
  limit: number;
  windowMs: number;
}

/** Whole seconds until one more event of this key fits the window, or null while it fits now. */
async function secondsUntilRoom(options: RateLimitRule & { db: Executor; now: Date }): Promise<number | null> {
  const { db, now, ...rule } = options;
  const since = new Date(now.getTime() - rule.windowMs);
  const { rateLimitEvents: events } = tables;
  const [row] = await db
    .select({ hits: count(), oldest: min(events.at) })
    .from(events)
    .where(and(eq(events.bucket, rule.bucket), eq(events.key, rule.key), gt(events.at, since)));
  if (!row || row.hits < rule.limit) return null;
  // The oldest event leaves the window first; once it has, one more attempt is allowed.
  const [nth] = await db
    .select({ at: events.at })
    .from(events)
    .where(and(eq(events.bucket, rule.bucket), eq(events.key, rule.key), gt(events.at, since)))
    .orderBy(asc(events.at))
    .offset(row.hits - rule.limit)
    .limit(1);
  const freeAt = (nth?.at ?? now).getTime() + rule.windowMs;
  return Math.max(1, Math.ceil((freeAt - now.getTime()) / 1000));
}

/** Refuses with 429 and Retry-After once `limit` events of this key fall inside the window. */
export async function assertWithinRateLimit(options: RateLimitRule & { db: Executor; now: Date }): Promise<void> {
  const retryAfter = await secondsUntilRoom(options);
  if (retryAfter !== null) throw new AppError("RATE_LIMITED", "Too many attempts; try again later", { retryAfterSeconds: retryAfter });
}

/**
 * Throws what several checks of one request refused, as one answer: an error other than a rate
 * limit first (it is not the client's pace), else the RATE_LIMITED with the longest Retry-After, so
 * that a client waiting as told is not refused at once by another limit that was hit too. Returns
 * when nothing was refused.
 */
function throwLongestRefusal(options: { refusals: unknown[] }): void {
  const { refusals } = options;
  const other = refusals.find((refusal) => !isAppError(refusal) || refusal.code !== "RATE_LIMITED");
  if (other !== undefined) throw other;
  const limited = refusals as AppError[];
  if (limited.length === 0) return;
  throw limited.reduce((longest, refusal) => ((refusal.retryAfterSeconds ?? 1) > (longest.retryAfterSeconds ?? 1) ? refusal : longest));
}

/** Runs one request's limit checks at once and refuses as one answer (`throwLongestRefusal`); a check may be absent. */
export async function checkLimitsTogether(options: { checks: Array<Promise<unknown> | undefined> }): Promise<void> {
  const settled = await Promise.allSettled(options.checks.filter((check) => check !== undefined));
  throwLongestRefusal({ refusals: settled.flatMap((check) => (check.status === "rejected" ? [check.reason as unknown] : [])) });
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
 * of them already holds `limit` attempts in its window; when several do, the refusal is the one of
 * the longest wait (`throwLongestRefusal`). The attempts of one key take turns (a transaction lock
 * per bucket and key, taken in one order), so requests sent at once cannot together pass a limit; a
 * refused attempt counts nothing, so a key keeps at most `limit` events a window however hard it is
 * tried, and the hourly prune removes them a day later. Written in the caller's transaction, before
 * the work it pays for (a password hash) begins.
 */
export async function countAttempt(options: { t: Pick<InTransaction, "tx" | "now">; rules: AttemptRule[] }): Promise<void> {
  const { t } = options;
  const now = t.now();
  const rules = [...options.rules].sort((a, b) => (`${a.bucket}:${a.key}` < `${b.bucket}:${b.key}` ? -1 : 1));
  const refusals: AppError[] = [];
  for (const rule of rules) {
    await t.tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`meridian:rate:${rule.bucket}:${rule.key}`}))`);
    const retryAfterSeconds = await secondsUntilRoom({ db: t.tx, now, ...rule });
    if (retryAfterSeconds !== null) refusals.push(new AppError("RATE_LIMITED", rule.refusal(waitWords({ seconds: retryAfterSeconds })), { retryAfterSeconds }));
  }
  throwLongestRefusal({ refusals });
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
