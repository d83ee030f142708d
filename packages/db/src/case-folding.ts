import type { DatabaseHandle } from "./client";

/**
 * Whether the database's default collation lowercases beyond ASCII. Under the C or POSIX locale
 * `lower()`, ILIKE and pg_trgm fold only ASCII letters, so searching for "émile" misses "Émile".
 */
export async function foldsUnicodeCase(database: DatabaseHandle): Promise<boolean> {
  const [row] = await database.sql<[{ folds: boolean }]>`select lower('É') = 'é' as folds`;
  return row.folds;
}
