import { connectDatabase, type DatabaseHandle } from "@meridian/db";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../support/auth-suite";
import { jsonApi } from "../support/json-api";
import { observingNetwork } from "../support/observing-network";
import { holdRows } from "../support/table-hold";
import { startTestServer, type TestServer } from "../support/test-server";
import { until } from "../support/until";

let server: TestServer;
let database: DatabaseHandle;
beforeAll(async () => {
  // No worker: the dispatch jobs stay where the test puts them.
  server = await startTestServer({ MERIDIAN_ROLE: "server" });
  database = connectDatabase(server.databaseUrl, { max: 2 });
});
afterAll(async () => {
  await database?.close();
  await server?.stop();
});
const { must } = jsonApi(() => server);

/** The observatory's dispatch jobs: whether a worker holds each, oldest first. */
async function dispatchJobs(observatoryId: string) {
  return database.db.execute<{ key: string | null; locked: boolean }>(sql`
    select j.key, j.locked_at is not null as locked from graphile_worker._private_jobs j
      join graphile_worker._private_tasks t on t.id = j.task_id
     where t.identifier = 'dispatch_observatory' and j.payload->>'observatoryId' = ${observatoryId}
     order by j.id`);
}

/** A new owner's observatory (no plugin connected) and a way to submit observations to it. */
async function network() {
  const owner = await createAccount(server);
  const { observatory, project } = await observingNetwork(must, owner);
  const submit = (name: string) =>
    must("/observations", { method: "POST", token: owner.token, json: { name, projectId: project.id, observatoryId: observatory.id, targets } }, 201);
  return { observatory, submit };
}

describe("the dispatch a change asks for", () => {
  it("is one waiting job however many changes ask for it", async () => {
    const { observatory, submit } = await network();
    await submit("First");
    await submit("Second");
    expect(await dispatchJobs(observatory.id)).toEqual([{ key: `dispatch:${observatory.id}`, locked: false }]);
  });

  it("follows a dispatch a worker took while the change was being written: that run may have read the world before it", async () => {
    const { observatory, submit } = await network();
    await submit("Waiting");
    // A worker takes the waiting dispatch while the next submission's transaction is queueing its own.
    const worker = await holdRows(
      server.databaseUrl,
      `update graphile_worker._private_jobs set locked_at = now(), locked_by = 'worker-under-test' where key = 'dispatch:${observatory.id}'`,
    );
    const submitted = submit("Submitted meanwhile");
    await until("the submission to wait for the job the worker takes", () => worker.waiting());
    await worker.commit();
    await submitted;

    expect(await dispatchJobs(observatory.id)).toEqual([
      { key: `dispatch:${observatory.id}`, locked: true },
      { key: null, locked: false },
    ]);
  });
});

const targets = [{ name: "Vega", ra: 279.23, dec: 38.78, exposures: [{ filter: "V", exposureSeconds: 30, count: 1, binning: 1 }] }];
