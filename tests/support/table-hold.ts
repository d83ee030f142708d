import postgres from "postgres";
import { until } from "./until";

export interface TableHold {
  /** True once a backend waits for the hold: the work under way has reached it and stopped there. */
  waiting(): Promise<boolean>;
  /** How many backends wait for the hold. */
  waiters(): Promise<number>;
  release(): Promise<void>;
  /** Ends the hold by committing what it did (a write that takes the held rows over, say), where `release` undoes it. */
  commit(): Promise<void>;
}

/** Runs `lock` in a transaction of its own, kept open (and what it locked held) until `release`. */
async function hold(databaseUrl: string, lock: string): Promise<TableHold> {
  const blocker = postgres(databaseUrl, { max: 1, onnotice: () => undefined });
  await blocker`begin`;
  const held = await blocker.unsafe(lock);
  if (held.count === 0 && held.command === "SELECT") throw new Error(`nothing to hold: ${lock}`);
  const [backend] = await blocker<Array<{ pid: number }>>`select pg_backend_pid() as pid`;
  const pid = backend!.pid;
  // pg_locks, not pg_stat_activity: within this open transaction the latter would answer from the
  // snapshot its first reading took, and never show a backend that started waiting since.
  const waiters = async () => {
    const [row] = await blocker<Array<{ waiting: number }>>`
      select count(distinct pid)::int as waiting from pg_locks where not granted and ${pid}::int = any(pg_blocking_pids(pid))`;
    return row!.waiting;
  };
  return {
    waiters,
    async waiting() {
      return (await waiters()) > 0;
    },
    async release() {
      await blocker`rollback`.catch(() => undefined);
      await blocker.end();
    },
    async commit() {
      try {
        await blocker`commit`;
      } finally {
        await blocker.end();
      }
    },
  };
}

/**
 * Holds a table exclusively until `release`, so work that reaches it (a backup's COPY, a restore's
 * load, a scan's count) waits there, halfway, for as long as a test needs.
 */
export function holdTable(databaseUrl: string, table: string): Promise<TableHold> {
  return hold(databaseUrl, `lock table ${table} in access exclusive mode`);
}

/**
 * Holds the rows a query selects (`select … for update`, given whole; or an advisory lock's
 * `select`) until `release`, so a writer that reaches them waits there.
 */
export function holdRows(databaseUrl: string, lockingSelect: string): Promise<TableHold> {
  return hold(databaseUrl, lockingSelect);
}

/**
 * How many of this database's backends wait for a lock, however they queue: a writer queued behind
 * another waiter waits on that backend, not on the hold, so `TableHold.waiters` does not count it.
 */
export async function lockWaiters(sql: postgres.Sql): Promise<number> {
  const [row] = await sql<Array<{ waiting: number }>>`
    select count(distinct pid)::int as waiting from pg_locks
     where not granted and pid in (select pid from pg_stat_activity where datname = current_database())`;
  return row!.waiting;
}

/**
 * Stages two writers against a hold: the first is sent and stops at the hold; the second is sent
 * then and queues behind it (a second lock waiter); the hold is released and both answers come
 * back, in that order. The hold is released however the staging ends.
 */
export async function queuedBehindHold<First, Second>(options: {
  hold: TableHold;
  sql: postgres.Sql;
  first: () => Promise<First>;
  second: () => Promise<Second>;
}): Promise<[First, Second]> {
  const { hold, sql } = options;
  try {
    const first = options.first();
    await until("the first writer to wait at the hold", async () => (await hold.waiters()) >= 1, { intervalMs: 5 });
    const second = options.second();
    await until("the second writer to queue behind it", async () => (await lockWaiters(sql)) >= 2, { intervalMs: 5 });
    await hold.release();
    return await Promise.all([first, second]);
  } finally {
    await hold.release();
  }
}
