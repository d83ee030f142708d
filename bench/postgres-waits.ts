// What PostgreSQL's client connections are doing, sampled through a window: running, waiting for a
// lock or for I/O, or idle inside a transaction (waiting for the Node process to send the next
// statement, so the time goes in Node). Says whether a run was bound by PostgreSQL or by its clients.
import postgres from "postgres";

export function sampleConnections(databaseUrl: string, everyMs = 200) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => undefined });
  const counts = new Map<string, number>();
  let samples = 0;
  let running = true;
  const done = (async () => {
    while (running) {
      const rows = await sql<Array<{ what: string; count: number }>>`
        select case when state = 'active' and wait_event_type = 'Lock' then 'waiting for a lock (row, transaction, object)'
                    when state = 'active' and wait_event_type in ('LWLock', 'IO', 'IPC') then 'waiting inside PostgreSQL (WAL flush, buffers)'
                    when state = 'active' then 'running a statement'
                    when state = 'idle in transaction' then 'idle in a transaction: waiting for its Node process'
                    else coalesce(state, 'unknown') end as what,
               count(*)::int as count
          from pg_stat_activity
         where backend_type = 'client backend' and pid <> pg_backend_pid()
         group by 1`;
      samples += 1;
      for (const row of rows) counts.set(row.what, (counts.get(row.what) ?? 0) + row.count);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    /** The average number of connections in each state over the samples. */
    stop: async () => {
      running = false;
      await done;
      await sql.end();
      return Object.fromEntries([...counts].map(([what, count]) => [what, count / Math.max(1, samples)]));
    },
  };
}
