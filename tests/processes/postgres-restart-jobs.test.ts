import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { LOCK_SPACES } from "@meridian/domain/platform";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { startOwnPostgres, type OwnPostgres } from "../support/own-postgres";
import { isRunning, spawnEntry, terminate, waitForOutput, type NodeProcess } from "../support/node-process";
import { observationDeliveredToDropbox } from "../support/dropbox-delivery";
import { startDropboxReceiver } from "../support/storage-receivers";
import { sharedProcessEnv, type TestServer } from "../support/test-server";
import { until } from "../support/until";

/**
 * PostgreSQL restarted under a running job, on a PostgreSQL of this file's own (the run's shared one
 * serves every other file): every connection of the server and the worker ends at once, the session
 * locks that say "this process is alive" with them. The processes live on, and so does the job.
 */
const ADMIN = { email: "postgres-restart-admin@example.com", password: "postgres restart admin password" };
let database: OwnPostgres;
let probe: postgres.Sql;
let server: TestServer;
let dropbox: Awaited<ReturnType<typeof startDropboxReceiver>>;
let worker: NodeProcess | undefined;
const { must } = jsonApi(() => server);

beforeAll(async () => {
  database = await startOwnPostgres("postgres-restart-test");
  probe = postgres(database.url, { max: 1, onnotice: () => undefined });
  dropbox = await startDropboxReceiver();
  // HTTP only, in this process: the job runs in the worker process started below.
  ({ server } = await startServerWithAdmin(ADMIN, { DATABASE_URL: database.url, DROPBOX_API_URL: dropbox.url, DROPBOX_CONTENT_URL: dropbox.url }));
}, 120_000);

afterAll(async () => {
  if (dropbox) dropbox.control.holdUploads = false;
  for (const release of dropbox?.held.splice(0) ?? []) release();
  if (worker && isRunning(worker)) await terminate(worker, 20_000);
  await server?.stop();
  await dropbox?.stop();
  await probe?.end({ timeout: 5 });
  await database?.remove();
}, 120_000);

/** How many backends hold a lock of `space` (the worker's presence, or the servers'). */
async function lockHolders(space: number): Promise<number> {
  const [row] = await probe<Array<{ count: number }>>`
    select count(distinct pid)::int as count from pg_locks
     where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())
       and classid = ${space}::int::oid`;
  return row?.count ?? 0;
}

describe("PostgreSQL restarted while a worker runs a job", () => {
  it("keeps the job running once, its lock held, and every process's presence re-held at once", { timeout: 240_000 }, async () => {
    const { owner, observation, key } = await observationDeliveredToDropbox(server, "Restart");
    const dataDir = await fs.mkdtemp(path.join(database.folder, "worker-"));
    worker = spawnEntry(
      "worker",
      { ...sharedProcessEnv(server, dataDir), DATABASE_URL: database.url, DROPBOX_API_URL: dropbox.url, DROPBOX_CONTENT_URL: dropbox.url, LOG_LEVEL: "info" },
      "worker",
    );
    await waitForOutput(worker, /Meridian worker running/);
    await until(
      "the server's and the worker's presence",
      async () => (await lockHolders(LOCK_SPACES.serverPresence)) === 1 && (await lockHolders(LOCK_SPACES.workerPresence)) === 1,
    );

    // The delivery's upload reaches Dropbox and waits there: its attempt runs across the restart.
    dropbox.control.holdUploads = true;
    const bytes = randomBytes(10_000);
    const uploaded = await server.request(`/observations/${observation.id}/files?filename=frame.fits`, {
      method: "POST",
      token: key,
      headers: { "content-type": "application/fits" },
      body: new Uint8Array(bytes),
    });
    expect(uploaded.status).toBe(201);
    await until("the upload to be held", async () => dropbox.held.length > 0, { timeoutMs: 60_000 });
    const [running] = await probe<
      Array<{ id: string; locked_by: string }>
    >`select id::text, locked_by from graphile_worker._private_jobs where locked_by is not null`;
    expect(running).toBeDefined();

    await database.stop();
    await database.start();
    const [postmaster] = await probe<Array<{ started: Date }>>`select pg_postmaster_start_time() as started`;

    // Each process takes its presence again as soon as PostgreSQL answers, not at a recheck minutes later.
    await until("the server's and the worker's presence to be held again", async () => {
      return (await lockHolders(LOCK_SPACES.serverPresence)) === 1 && (await lockHolders(LOCK_SPACES.workerPresence)) === 1;
    });
    // A beat after the restart: the worker's recovery (every 2 s) has looked for dead workers since it holds its presence again.
    await until(
      "the worker's heartbeat after the restart",
      async () => {
        const [beat] = await probe<Array<{ after: boolean }>>`select max(last_seen_at) > ${postmaster!.started} as after from worker_heartbeats`;
        return beat?.after === true;
      },
      { timeoutMs: 30_000 },
    );
    const [still] = await probe<Array<{ locked_by: string | null; attempts: number }>>`
      select locked_by, attempts from graphile_worker._private_jobs where id = ${running!.id}`;
    expect(still).toEqual({ locked_by: running!.locked_by, attempts: 1 });

    dropbox.control.holdUploads = false;
    for (const release of dropbox.held.splice(0)) release();
    const delivery = await until(
      "the delivery to end",
      async () => {
        const files = (await must(`/observations/${observation.id}/files`, { token: owner.token })) as {
          items: Array<{ deliveries: Array<{ status: string; attempts: number }> }>;
        };
        const found = files.items[0]?.deliveries[0];
        return found && found.status !== "pending" ? found : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(delivery).toMatchObject({ status: "delivered", attempts: 1 });
    // Started once: one upload reached Dropbox, and no worker (this one least of all) was taken for dead.
    expect(dropbox.requests.filter((request) => request.path === "/2/files/upload")).toHaveLength(1);
    expect(worker.output()).not.toMatch(/freed the jobs and email claims of workers/);
    expect(isRunning(worker)).toBe(true);
  });
});
