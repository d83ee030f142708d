import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { holdTable } from "../support/table-hold";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

/*
 * A backup's connections have their own statement_timeout (BACKUP_STATEMENT_TIMEOUT_MS, none by
 * default), not the jobs' (JOB_STATEMENT_TIMEOUT_MS): copying a large table is one statement, and
 * one that waits, or reads for long, is no fault.
 */

const ADMIN = { email: "backup-timeout-admin@example.com", password: "backup timeout admin password" };
const JOB_STATEMENT_TIMEOUT_MS = 200;
let server: TestServer;
let adminToken: string;
beforeAll(async () => {
  // Jobs run in this process (all), with a job statement timeout far below what the backup waits.
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all", JOB_STATEMENT_TIMEOUT_MS: String(JOB_STATEMENT_TIMEOUT_MS) }));
});
afterAll(() => server?.stop());
const { must, jobToEnd } = jsonApi(() => server);

/** How many of this database's backends have waited for a lock longer than `ms`. */
async function waitedLongerThan(ms: number) {
  const [row] = await server.server.runtime.deps.sql<Array<{ count: number }>>`
    select count(*)::int as count from pg_stat_activity
     where datname = current_database() and wait_event_type = 'Lock' and now() - query_start > ${`${ms} milliseconds`}::interval`;
  return row!.count;
}

describe("a backup under a job statement timeout", () => {
  it("waits behind a lock longer than JOB_STATEMENT_TIMEOUT_MS and still completes", async () => {
    const hold = await holdTable(server.databaseUrl, "push_subscriptions");
    let jobId: string;
    try {
      ({ jobId } = (await must("/api/v1/admin/backups", { method: "POST", token: adminToken }, 202)) as { jobId: string });
      await until("the backup to wait at the held table", hold.waiting);
      await until("its wait to outlast the jobs' statement timeout", async () => (await waitedLongerThan(2 * JOB_STATEMENT_TIMEOUT_MS)) > 0);
    } finally {
      await hold.release();
    }
    expect(await jobToEnd<{ status: string; error: string | null }>(jobId, adminToken, 60_000)).toMatchObject({ status: "completed", error: null });
  });
});
