import type { Transaction } from "@meridian/db";
import { sql } from "drizzle-orm";
import type { CachedPrincipal } from "../principal";
import { ReadThroughCache } from "./read-through-cache";

export const CACHE_CHANNEL = "meridian_cache";
const MAX_ENTRIES = 20_000;
/** Observation pages are large (a first page of 50 is about 50 KB): bounded by their bytes as well. */
const MAX_OBSERVATION_PAGES = 2_000;
const MAX_OBSERVATION_PAGE_BYTES = 32 * 1024 * 1024;

/** What a change makes stale: one credential, everything of one user, or every pending list. */
export type CacheChange =
  | { kind: "token"; tokenHash: string }
  | { kind: "user"; userId: string }
  | { kind: "pending"; userId: string }
  | { kind: "announcements" }
  /** Observations, or what decides who reads them or their estimates, changed: every cached page is stale. */
  | { kind: "observations" }
  /** A restore began maintenance: writes must ask the database again. */
  | { kind: "maintenance" }
  /** A restore replaced the data: every entry is stale. */
  | { kind: "all" };

/**
 * How long "no maintenance" is believed without asking the database. Maintenance that begins in another
 * process is heard by NOTIFY at once; this bounds a NOTIFY lost while a LISTEN connection reconnects.
 */
const NO_MAINTENANCE_MS = 1_000;

export interface PendingEntry {
  items: unknown[];
  /** `{items}` serialized, filled on first use: the hot REST path sends it as is. */
  json?: string;
}

/** A first page of observations as `{items, nextCursor}` JSON, as the REST path sends it. */
export interface ObservationPageEntry {
  json: string;
}

/**
 * Per-process caches for the reads every page load makes: who the bearer of a token is, which
 * announcements block them, and the first page of their observations. The hot paths then answer
 * without a database round trip.
 */
export class RequestCaches {
  /**
   * How long an entry may be served without any invalidation (REQUEST_CACHE_TTL_MS). Invalidation
   * is immediate in the process that made the change and arrives by NOTIFY in the others; the
   * bound covers a NOTIFY lost while a LISTEN connection reconnects.
   */
  constructor(readonly ttlMs: number) {}

  readonly principals = new ReadThroughCache<CachedPrincipal>({ maxEntries: MAX_ENTRIES });
  readonly pending = new ReadThroughCache<PendingEntry>({ maxEntries: MAX_ENTRIES });
  readonly observationPages = new ReadThroughCache<ObservationPageEntry>({
    maxEntries: MAX_OBSERVATION_PAGES,
    maxWeight: MAX_OBSERVATION_PAGE_BYTES,
    weigh: (entry) => entry.json.length,
  });
  /**
   * Until when writes may assume that no restore holds maintenance (only that answer is kept: an active
   * maintenance is always read again, so its end is seen at once). `maintenanceGeneration` is bumped by every
   * beginning, so a read that raced one does not store "none".
   */
  private noMaintenanceUntil = 0;
  private maintenanceGeneration = 0;
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
        break;
      case "announcements":
        this.pending.clear();
        break;
      case "observations":
        this.observationPages.clear();
        break;
      case "maintenance":
        this.forgetNoMaintenance();
        break;
      case "all":
        this.clear();
        break;
    }
  }

  /** Whether a recent read found no maintenance and no beginning has been heard since. */
  knowsNoMaintenance(now: number): boolean {
    return now < this.noMaintenanceUntil;
  }

  /** The generation a read of the maintenance state starts in, for `rememberNoMaintenance`. */
  maintenanceReadStarts(): number {
    return this.maintenanceGeneration;
  }

  /** A read that began in `generation` found no maintenance: kept unless a beginning was heard meanwhile. */
  rememberNoMaintenance(generation: number, now: number): void {
    if (generation === this.maintenanceGeneration) this.noMaintenanceUntil = now + Math.min(this.ttlMs, NO_MAINTENANCE_MS);
  }

  private forgetNoMaintenance(): void {
    this.noMaintenanceUntil = 0;
    this.maintenanceGeneration += 1;
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
    this.forgetNoMaintenance();
    this.principals.clear();
    this.pending.clear();
    this.observationPages.clear();
  }
}

/**
 * Announces a change to every process's caches. Runs in the writer's transaction (NOTIFY is
 * delivered on commit) and clears this process's entries at once, so the writer's next request
 * never sees the old state. `t` is named by its parts rather than as a Pick of InTransaction:
 * transaction.ts imports deps.ts, which imports this file.
 */
export async function invalidateCaches(options: {
  t: { tx: Transaction; caches: RequestCaches; cacheChanges: CacheChange[] };
  change: CacheChange;
}): Promise<void> {
  const { t, change } = options;
  t.caches.apply(change);
  // Again once committed: a read of this process that ran between here and the commit saw the old rows.
  t.cacheChanges.push(change);
  await t.tx.execute(sql`select pg_notify(${CACHE_CHANNEL}, ${JSON.stringify(change)})`);
}
