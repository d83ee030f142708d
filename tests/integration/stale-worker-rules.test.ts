import { beatWorkerHeartbeat, holdWorkerPresence, recoverStaleWorkers } from "@meridian/domain/platform";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestRuntime, type TestRuntime } from "../support/test-runtime";

/**
 * Who counts as a dead worker when presence locks go missing. A restart of PostgreSQL ends every
 * session, and so every presence lock, though no worker died (postgres-restart-jobs.test.ts runs
 * one, where the rule for heartbeats older than PostgreSQL's start is at work); here the scene is set in the tables.
 */
let runtime: TestRuntime;
beforeAll(async () => {
  // No worker and no HTTP: the test writes the heartbeats and runs the recovery itself.
  runtime = await startTestRuntime();
});
afterAll(() => runtime?.stop());
afterEach(async () => void (await deps().db.execute(sql`delete from worker_heartbeats`)));

const deps = () => runtime.deps;

async function heartbeat(workerId: string, lastSeen: ReturnType<typeof sql>) {
  await deps().db.execute(sql`insert into worker_heartbeats (worker_id, last_seen_at) values (${workerId}, ${lastSeen})`);
}

async function heartbeats(): Promise<string[]> {
  const rows = await deps().db.execute<{ worker_id: string }>(sql`select worker_id from worker_heartbeats order by worker_id`);
  return rows.map((row) => row.worker_id);
}

describe("recovering dead workers", () => {
  it("frees a worker that beat without holding its lock, but never the caller, whose own connection may be what was cut", async () => {
    await heartbeat("killed", sql`now()`);
    await heartbeat("self", sql`now()`);

    const { workers } = await recoverStaleWorkers({ deps: deps(), self: "self" });
    expect(workers).toEqual(["killed"]);
    expect(await heartbeats()).toEqual(["self"]);
  });

  it("records a worker's heartbeat only while it holds its presence", async () => {
    await beatWorkerHeartbeat({ deps: deps(), workerId: "without-its-lock", graphileWorkerIds: [] });
    expect(await heartbeats()).toEqual([]);

    const presence = await holdWorkerPresence({ deps: deps(), workerId: "with-its-lock" });
    try {
      await beatWorkerHeartbeat({ deps: deps(), workerId: "with-its-lock", graphileWorkerIds: ["pool-1"] });
      const [row] = await deps().db.execute<{ ids: string[] }>(sql`select graphile_worker_ids as ids from worker_heartbeats where worker_id = 'with-its-lock'`);
      expect(row?.ids).toEqual(["pool-1"]);
      expect((await recoverStaleWorkers({ deps: deps() })).workers).toEqual([]);
    } finally {
      await presence.release();
    }
    expect((await recoverStaleWorkers({ deps: deps() })).workers).toEqual(["with-its-lock"]);
  });
});
