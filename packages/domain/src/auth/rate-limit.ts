import { tables, type Executor } from "@meridian/db";
import { and, asc, count, eq, gt, lt, min } from "drizzle-orm";
import { AppError } from "../errors";

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
