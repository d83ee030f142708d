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
export async function assertWithinRateLimit(db: Executor, now: Date, rule: RateLimitRule): Promise<void> {
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
  throw new AppError("RATE_LIMITED", "Too many attempts; try again later", { headers: { "Retry-After": String(retryAfter) } });
}

export async function recordRateLimitEvent(db: Executor, now: Date, bucket: string, key: string): Promise<void> {
  await db.insert(tables.rateLimitEvents).values({ bucket, key, at: now });
}

export async function clearRateLimit(db: Executor, bucket: string, key: string): Promise<void> {
  await db.delete(tables.rateLimitEvents).where(and(eq(tables.rateLimitEvents.bucket, bucket), eq(tables.rateLimitEvents.key, key)));
}

/** Removes events older than the longest window; run by a periodic job. */
export async function pruneRateLimitEvents(db: Executor, now: Date, olderThanMs = 24 * 3600_000): Promise<number> {
  const removed = await db
    .delete(tables.rateLimitEvents)
    .where(lt(tables.rateLimitEvents.at, new Date(now.getTime() - olderThanMs)))
    .returning({ id: tables.rateLimitEvents.id });
  return removed.length;
}
