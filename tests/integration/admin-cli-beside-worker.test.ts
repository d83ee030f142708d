import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { filesCollection, integrityScansCollection, jobsCollection } from "@meridian/db";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdminCli } from "../support/admin-cli";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { isRunning, spawnEntry, terminate, waitForOutput, type NodeProcess } from "../support/node-process";
import { fileDocument } from "../support/observation-documents";
import { holdTable } from "../support/table-hold";
import { sharedProcessEnv, type TestServer } from "../support/test-server";
import { until } from "../support/until";

// `pnpm admin` beside a running server whose worker picks up the jobs the CLI starts: the server's
// HTTP side and the CLI run in this test, its worker is a process of its own, started when a test needs it there.
const ADMIN = { email: "cli-beside-worker-admin@example.com", password: "cli beside a worker admin password" };
let server: TestServer;
let adminToken: string;
let worker: NodeProcess | undefined;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
  await must("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { scanSchedule: { quick: null, full: null }, backupSchedule: null } }, 200);
});
afterAll(async () => {
  if (worker && isRunning(worker)) await terminate(worker, 30_000);
  await server?.stop();
});
const { must } = jsonApi(() => server);
const deps = () => server.server.runtime.deps;
const admin = (...args: string[]) => runAdminCli(server, args);

async function startWorker() {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-cli-worker-"));
  worker = spawnEntry("worker", { ...sharedProcessEnv(server, dataDir), LOG_LEVEL: "info" }, "the server's worker");
  await waitForOutput(worker, /Meridian worker running/);
}

/** The scan the CLI started, once its own run has taken it (its runId set). */
const cliScan = async () => {
  const [scan] = await integrityScansCollection.findMany(deps().db, sql`doc->>'trigger' = 'cli' and status in ('queued', 'running')`, sql`id`, 1);
  return scan?.doc.runId ? scan : undefined;
};

/**
 * The processes (the CLI, the worker) with a repair's run waiting for a lock: at its first read of
 * the files (whose owner names an orphan's key), or for the other run's turn to end.
 */
async function waitingRepairRuns() {
  const rows = await deps().sql<Array<{ process: string }>>`
    select distinct split_part(a.application_name, ':', 1) as process from pg_locks l join pg_stat_activity a on a.pid = l.pid
     where not l.granted and a.datname = current_database() and a.application_name similar to 'meridian-(admin|worker)%'
       and (a.query like '%object_key%' or a.query like '%pg_advisory_lock%')`;
  return rows.map((row) => row.process);
}

// Each command runs in this process (runCli) beside the worker process: generous limits, since a loaded machine runs them slowly.
describe("the admin CLI beside a running server's worker", { timeout: 600_000 }, () => {
  it("waits for a scan the worker took over, and prints its real summary and exit code", async () => {
    const lost = await filesCollection.insert(deps().db, fileDocument("obs_lost", "oby_lost", "lost.fits"));
    // The CLI's run takes the scan and stops at the count of the files, held here.
    const hold = await holdTable(server.databaseUrl, "files");
    let run: ReturnType<typeof admin> | undefined;
    try {
      run = admin("--json", "scan", "--kind", "full", "--collections", "files", "--storage");
      const taken = await until("the CLI's run to take its scan and wait at the files", async () => (await hold.waiting()) && (await cliScan()), {
        timeoutMs: 120_000,
      });
      // The server's worker picks the scan's job up and takes the scan over from the CLI's run.
      await startWorker();
      await until(
        "the worker's run to take the scan over",
        async () => (await integrityScansCollection.get(deps().db, taken.id))?.doc.runId !== taken.doc.runId,
        {
          timeoutMs: 120_000,
        },
      );
    } finally {
      await hold.release();
    }
    const done = await run!;
    expect(done.code, done.output).toBe(0);
    expect(done.json()).toMatchObject({ status: "completed", summary: { critical: 1, warning: 0 } });
    const issues = (await must(`/api/v1/admin/integrity/scans/${done.json().id as string}/issues?severity=critical`, { token: adminToken }, 200)) as {
      items: Array<{ documentId: string; code: string }>;
    };
    expect(issues.items).toEqual([expect.objectContaining({ documentId: lost.id, code: "FILE_MISSING" })]);
  });

  it("waits for a bulk repair and a backup the worker may run too, and prints what they did", async () => {
    if (!worker || !isRunning(worker)) await startWorker();
    const orphans = Array.from({ length: 20 }, (_, index) => `observations/obs_lost/orphan-${String(index).padStart(2, "0")}.fits`);
    for (const key of orphans) await deps().storage.put(key, Buffer.from("nobody's"));
    const scan = await admin("--json", "scan", "--kind", "full", "--collections", "files", "--storage");
    expect(scan.json()).toMatchObject({ status: "completed", summary: { warning: orphans.length } });

    // Its two runs, the CLI's and the worker's, meet at the start: held at the files (a repair's first read), or waiting for the other.
    const hold = await holdTable(server.databaseUrl, "files");
    let running: ReturnType<typeof admin> | undefined;
    try {
      running = admin("--json", "repair-all", scan.json().id as string);
      await until("both runs of the repair to wait", async () => (await waitingRepairRuns()).length === 2, { timeoutMs: 120_000 });
    } finally {
      await hold.release();
    }
    const repair = await running!;
    expect(repair.code, repair.output).toBe(0);
    // Each orphan moved once, by one run: none skipped as changed by the other.
    expect(repair.json()).toMatchObject({ repaired: orphans.length, skipped: 0 });
    const [job] = await jobsCollection.findMany(deps().db, sql`kind = 'integrity_repair'`, sql`id`, 1);
    expect(job?.doc).toMatchObject({ status: "completed", result: { repaired: orphans.length, skipped: 0 } });
    for (const key of orphans) expect(await deps().storage.head(`quarantine/${key}`)).toBeDefined();

    const backup = await admin("--json", "backup", "create");
    expect(backup.code, backup.output).toBe(0);
    expect(backup.json()).toMatchObject({ status: "verified" });
  });
});
