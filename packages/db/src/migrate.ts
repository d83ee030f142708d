import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import { runMigrations as runWorkerMigrations } from "graphile-worker";
import postgres from "postgres";
import type { DatabaseHandle } from "./client";
import { installClientConnectionCheck } from "./client-connection-check";
import { installQueueReleaseNudge } from "./queue-release-nudge";

const migrationsFolder = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../migrations");

const MIGRATION_LOCK = 727274;

/** The schema's version: how many migrations this code carries (backups record it; a restore refuses a newer one). */
export function schemaVersion(): number {
  const journal = JSON.parse(readFileSync(path.join(migrationsFolder, "meta/_journal.json"), "utf8")) as { entries: unknown[] };
  return journal.entries.length;
}

/** Applies the committed Drizzle migrations, graphile-worker's own schema, its freed-queue nudge and the role's client check. Idempotent. */
export async function migrateDatabase(handle: DatabaseHandle): Promise<void> {
  // Processes starting together take turns, on a connection of their own (outside the pool, even a pool of one).
  const lock = postgres(handle.url, { max: 1, onnotice: () => undefined });
  try {
    await lock`select pg_advisory_lock(${MIGRATION_LOCK})`;
    // On the lock's own connection, not the pool: the pool's statement_timeout (one per kind of
    // process) must not cut a migration that rewrites or indexes a large table.
    await migrate(drizzle(lock), { migrationsFolder });
    await runWorkerMigrations({ connectionString: handle.url });
    await installQueueReleaseNudge(lock);
    await installClientConnectionCheck(lock);
  } finally {
    await lock`select pg_advisory_unlock(${MIGRATION_LOCK})`.catch(() => undefined);
    await lock.end({ timeout: 5 });
  }
}
