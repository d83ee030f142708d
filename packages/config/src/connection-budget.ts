import type { Env } from "./env";

export type ProcessKind = Env["MERIDIAN_ROLE"] | "admin";

/** The most PostgreSQL connections one process opens, by what holds them. */
export interface ConnectionBudget {
  /** The shared pool: requests, WebSocket handlers, job bodies, and the session locks held from it. */
  pool: number;
  /** postgres.js's own LISTEN connection (cache invalidation, events, presence), outside the pool. */
  notifications: number;
  /** graphile-worker's pool (its two runners' LISTEN clients, taking and completing jobs); 0 without a worker. */
  jobs: number;
  /** A backup's reader threads, each on a connection of its own (ADR 23); 0 in a process that runs no backups. */
  backupReaders: number;
  total: number;
}

/** The most reader threads a backup runs at once, each with its own connection importing the backup's snapshot. */
export const BACKUP_READER_CONNECTIONS = 4;

/** The admin CLI's pool: one command at a time, but `restore` runs in it with its parallel loads beside its lock. */
const ADMIN_POOL_SIZE = 8;

/**
 * What a process of this kind may open at most, from the same settings the processes read: an
 * operator sums it over the processes to size `max_connections` (infra/README), `pnpm cluster`
 * refuses to start a cluster that does not fit, and a test holds each process kind to it.
 */
export function databaseConnectionBudget(
  env: Pick<Env, "DATABASE_POOL_SIZE" | "WORKER_DATABASE_POOL_SIZE" | "JOBS_DATABASE_POOL_SIZE">,
  kind: ProcessKind,
): ConnectionBudget {
  const pool = kind === "admin" ? ADMIN_POOL_SIZE : kind === "worker" ? env.WORKER_DATABASE_POOL_SIZE : env.DATABASE_POOL_SIZE;
  const jobs = kind === "worker" || kind === "all" ? env.JOBS_DATABASE_POOL_SIZE : 0;
  const notifications = 1;
  const backupReaders = kind === "server" ? 0 : BACKUP_READER_CONNECTIONS;
  return { pool, notifications, jobs, backupReaders, total: pool + notifications + jobs + backupReaders };
}
