import postgres from "postgres";

export interface TableHold {
  /** True once a backend waits for the table: the work under way has reached it and stopped there. */
  waiting(): Promise<boolean>;
  release(): Promise<void>;
}

export interface RowsHold extends TableHold {
  /** How many backends wait for this one. */
  waiters(): Promise<number>;
}

/**
 * Holds a table exclusively until `release`, so work that reaches it (a backup's COPY, a restore's
 * load, a scan's count) waits there, halfway, for as long as a test needs.
 */
export async function holdTable(databaseUrl: string, table: string): Promise<TableHold> {
  const blocker = postgres(databaseUrl, { max: 1, onnotice: () => undefined });
  await blocker`begin`;
  await blocker.unsafe(`lock table ${table} in access exclusive mode`);
  return {
    async waiting() {
      const [row] = await blocker<Array<{ waiting: number }>>`
        select count(*)::int as waiting from pg_locks where not granted and relation = ${table}::regclass`;
      return row!.waiting > 0;
    },
    async release() {
      await blocker`rollback`.catch(() => undefined);
      await blocker.end();
    },
  };
}

/**
 * Holds the rows a query selects (`select … for update`, given whole) until `release`, so a writer
 * that reaches them waits there; `waiting` is true once some backend waits for this one.
 */
export async function holdRows(databaseUrl: string, lockingSelect: string): Promise<RowsHold> {
  const blocker = postgres(databaseUrl, { max: 1, onnotice: () => undefined });
  await blocker`begin`;
  const held = await blocker.unsafe(lockingSelect);
  if (held.length === 0) throw new Error(`nothing to hold: ${lockingSelect}`);
  const [backend] = await blocker<Array<{ pid: number }>>`select pg_backend_pid() as pid`;
  const pid = backend!.pid;
  const waiters = async () => {
    const [row] = await blocker<Array<{ waiting: number }>>`
      select count(*)::int as waiting from pg_stat_activity where ${pid}::int = any(pg_blocking_pids(pid))`;
    return row!.waiting;
  };
  return {
    waiters,
    async waiting() {
      return (await waiters()) > 0;
    },
    async release() {
      await blocker`commit`.catch(() => undefined);
      await blocker.end();
    },
  };
}
