import type { Transaction } from "@meridian/db";
import { sql } from "drizzle-orm";
import type { CachedPrincipal } from "../auth/principal";
import { TtlCache } from "./ttl-cache";

export const CACHE_CHANNEL = "meridian_cache";
const MAX_ENTRIES = 20_000;

/** What a change makes stale: one credential, everything of one user, or every pending list. */
export type CacheChange =
  | { kind: "token"; tokenHash: string }
  | { kind: "user"; userId: string }
  | { kind: "pending"; userId: string }
  | { kind: "announcements" }
  /** A restore replaced the data: every entry is stale. */
  | { kind: "all" };

export interface PendingEntry {
  items: unknown[];
  /** `{items}` serialized, filled on first use: the hot REST path sends it as is. */
  json?: string;
}

/**
 * Per-process caches for the two reads every page load makes: who the bearer of a token is,
 * and which announcements block them. Both hot paths then answer without a database round trip.
 */
export class RequestCaches {
  /**
   * How long an entry may be served without any invalidation (REQUEST_CACHE_TTL_MS). Invalidation
   * is immediate in the process that made the change and arrives by NOTIFY in the others; the
   * bound covers a NOTIFY lost while a LISTEN connection reconnects.
   */
  constructor(readonly ttlMs: number) {}

  readonly principals = new TtlCache<CachedPrincipal>({ maxEntries: MAX_ENTRIES });
  readonly pending = new TtlCache<PendingEntry>({ maxEntries: MAX_ENTRIES });
  /** Bumped by every announcement change, so a read that raced a change does not store stale data. */
  announcementsGeneration = 0;

  apply(change: CacheChange): void {
    switch (change.kind) {
      case "token":
        this.principals.delete(change.tokenHash);
        break;
      case "user":
        this.principals.deleteWhere((principal) => principal.user.id === change.userId);
        this.pending.delete(change.userId);
        break;
      case "pending":
        this.pending.delete(change.userId);
        this.announcementsGeneration += 1;
        break;
      case "announcements":
        this.pending.clear();
        this.announcementsGeneration += 1;
        break;
      case "all":
        this.clear();
        break;
    }
  }

  /** NOTIFY payloads are the JSON of a CacheChange; anything else clears everything, to be safe. */
  applyMessage(payload: string): void {
    try {
      this.apply(JSON.parse(payload) as CacheChange);
    } catch {
      this.clear();
    }
  }

  /** Forgets everything: after a LISTEN reconnect, changes made meanwhile were missed. */
  clear(): void {
    this.principals.clear();
    this.pending.clear();
    this.announcementsGeneration += 1;
  }
}

/**
 * Announces a change to every process's caches. Runs in the writer's transaction (NOTIFY is
 * delivered on commit) and clears this process's entries at once, so the writer's next request
 * never sees the old state. `t` is named by its parts rather than as a Pick of InTransaction:
 * transaction.ts imports deps.ts, which imports this file.
 */
export async function invalidateCaches(options: { t: { tx: Transaction; caches: RequestCaches }; change: CacheChange }): Promise<void> {
  const { t, change } = options;
  t.caches.apply(change);
  await t.tx.execute(sql`select pg_notify(${CACHE_CHANNEL}, ${JSON.stringify(change)})`);
}
