import { drizzle, type PostgresJsDatabase } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { preparingForDrizzle } from "./prepared-statements";
import * as schema from "./schema";

export type Schema = typeof schema;
export type Database = PostgresJsDatabase<Schema>;
/** An open transaction: it has `rollback`, so the pool (`Database`) is never one. */
export type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];
/** The pool or a transaction; repository functions accept either. */
export type Executor = Database | Transaction;

export interface DatabaseHandle {
  db: Database;
  sql: postgres.Sql;
  url: string;
  close(): Promise<void>;
}

/** How long the pool waits before connecting again after a connection failed (postgres.js `backoff`). */
const RECONNECT_BACKOFF_SECONDS = 0.05;

/** `applicationName` names the process in pg_stat_activity (server processes tell each other apart by it). */
export function connectDatabase(
  url: string,
  options: { max?: number; applicationName?: string; connectTimeoutSeconds?: number; statementTimeoutMs?: number } = {},
): DatabaseHandle {
  const sql = postgres(url, {
    max: options.max ?? 10,
    // A PostgreSQL that does not answer fails the query (503 to a request) instead of holding it.
    connect_timeout: options.connectTimeoutSeconds ?? 10,
    // postgres.js waits before connecting again after a failed connection, by default longer after
    // each (up to 20 s, shared by the pool): a PostgreSQL back after a restart was used only ~9 s
    // later. A short constant instead; a process refuses requests at once while its database is
    // known to be down (database-availability.ts in the API), so this does not hammer it.
    backoff: () => RECONNECT_BACKOFF_SECONDS,
    onnotice: () => undefined,
    // The server and worker share the clock of PostgreSQL; keep everything in UTC.
    // statement_timeout 0 (PostgreSQL's default) sets no limit.
    connection: { TimeZone: "UTC", application_name: options.applicationName ?? "meridian", statement_timeout: options.statementTimeoutMs ?? 0 },
  });
  const db = drizzle(preparingForDrizzle(sql), { schema });
  return { db, sql, url, close: () => sql.end({ timeout: 5 }) };
}
