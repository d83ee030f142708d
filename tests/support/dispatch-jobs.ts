import { sql } from "drizzle-orm";
import type { TestServer } from "./test-server";
import { until } from "./until";

/** How many `dispatch_observatory` jobs wait or run on the server's database. */
export async function dispatchJobsLeft(server: TestServer): Promise<number> {
  const [row] = await server.server.runtime.deps.db.execute<{ count: number }>(sql`
    select count(*)::int as count from graphile_worker._private_jobs
     where task_id in (select id from graphile_worker._private_tasks where identifier = 'dispatch_observatory')`);
  return row!.count;
}

/** Until no dispatch job waits or runs: whatever was queued has had its say. */
export const dispatchJobsDone = (server: TestServer, timeoutMs?: number) =>
  until("every dispatch job to finish", async () => (await dispatchJobsLeft(server)) === 0, timeoutMs === undefined ? {} : { timeoutMs });
