import { backupsCollection, jobsCollection, observationsCollection, readNetworkPlan, type BackupDoc, type NetworkPlanDoc } from "@meridian/db";
import { failBackup, PARALLEL_SECTION_BYTES, RESTORED_COLLECTIONS, startScheduledBackup } from "@meridian/domain/backups";
import { endMaintenance } from "@meridian/domain/system";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, createAccount, expectProblem, type Account } from "../support/auth-suite";
import { connectWebSocket } from "../support/ws-client";
import { jsonApi } from "../support/json-api";
import { observationDocument } from "../support/observation-documents";
import { startObservingSetup } from "../support/observing-setup";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";
import { recordHeldJob } from "../support/held-jobs";

const ADMIN = { email: "backup-admin@example.com", password: "backup admin password" };
let server: TestServer;
let adminToken: string;
let owner: Account;
let observatoryId: string;
let projectId: string;
beforeAll(async () => {
  ({ server, adminToken, owner, observatoryId, projectId } = await startObservingSetup(ADMIN, "Archived"));
});
afterAll(() => server?.stop());
const { must, jobToEnd: endOfJob } = jsonApi(() => server);
const deps = () => server.server.runtime.deps;

/**
 * Whatever a case did or failed to do, the next one finds the server usable (CI run 9: a case that
 * failed mid-restore left its maintenance on, and the five after it got 503; a backup left archiving
 * refuses the next ones with 409 BACKUP_RUNNING): a backup, verification or restore still queued or
 * running is cancelled (which gives back its maintenance and records) and waited for, any
 * maintenance left is ended, and the backup schedule is off again. A case that passes leaves none of these.
 */
afterEach(async () => {
  const live = await deps().db.execute<{ id: string }>(
    sql`select id from jobs where kind in ('backup_create', 'backup_verify', 'backup_restore') and status in ('queued', 'running')`,
  );
  for (const { id } of live) {
    const cancel = await admin(`/api/v1/admin/jobs/${id}/cancel`, { method: "POST" });
    // 409 JOB_FINISHED: it ended on its own meanwhile.
    if (cancel.status !== 200 && cancel.status !== 409) throw new Error(`cancelling job ${id}: ${cancel.status} ${await cancel.text()}`);
    await jobToEnd(id);
  }
  await endMaintenance({ db: deps().db });
  await until("the server to see no maintenance", async () => !((await (await server.request("/api/v1/maintenance")).json()) as { active: boolean }).active);
  await must("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { backupSchedule: null } }, 200);
}, 120_000);

interface Backup {
  id: string;
  createdAt: string;
  finishedAt: string | null;
  sizeBytes: number | null;
  status: string;
  error: string | null;
  jobId: string;
  manifest: {
    format: string;
    schemaVersion: number;
    snapshotAt: string;
    collections: Array<{ name: string; rows: number; bytes: number; sections: number }>;
    sizeBytes: number;
    parts: Array<{ key: string; sizeBytes: number; sections: Array<{ name: string; rows: number; blocks?: { from: number; to: number | null } }> }>;
  } | null;
}
interface Job {
  kind: string;
  status: string;
  error: string | null;
  result: Record<string, unknown> | null;
  progress: { stage: string | null };
}

const admin = (path: string, init: { method?: string; json?: unknown } = {}) => server.request(path, { ...init, token: adminToken });
const jobToEnd = (jobId: string) => endOfJob<Job>(jobId, adminToken);
const backupOf = (id: string) => must(`/api/v1/admin/backups/${id}`, { token: adminToken }, 200) as Promise<Backup>;
const backupToSettle = (id: string) =>
  until(
    `backup ${id} to settle`,
    async () => {
      const backup = await backupOf(id);
      return backup.status === "verified" || backup.status === "failed" ? backup : undefined;
    },
    { timeoutMs: 60_000 },
  );
/** A backup record as a backup writes it while it archives (nothing in storage behind it). */
const runningBackupRecord = (objectKey: string) =>
  backupsCollection.insert(deps().db, {
    status: "running",
    trigger: "manual",
    objectKey,
    sizeBytes: null,
    manifest: null,
    jobId: null,
    startedBy: null,
    startedAt: new Date().toISOString(),
    finishedAt: null,
    verifiedAt: null,
    error: null,
  });

async function takeBackup(): Promise<Backup> {
  const response = await admin("/api/v1/admin/backups", { method: "POST" });
  expect(response.status).toBe(202);
  const started = (await response.json()) as Backup;
  return backupToSettle(started.id);
}
const observationNames = async (token: string) =>
  ((await must("/observations", { token }, 200)) as { items: Array<{ name: string }> }).items.map((item) => item.name).sort();
const seedObservation = (name: string) =>
  observationsCollection.insert(deps().db, observationDocument({ projectId, observatoryId, ownerId: owner.id }, { name }));

describe("backups", () => {
  it("archives every collection with a manifest, reads it back and lists it with timestamp, size and status", async () => {
    await seedObservation("Backed up");
    const response = await admin("/api/v1/admin/backups", { method: "POST" });
    expect(response.status).toBe(202);
    const started = (await response.json()) as Backup;
    expect(started).toMatchObject({ status: "running", sizeBytes: null, manifest: null });
    expect(Date.parse(started.createdAt)).not.toBeNaN();

    const backup = await backupToSettle(started.id);
    expect(backup.error).toBeNull();
    expect(backup.status).toBe("verified");
    // A tracked job's kind is its job's name (ADR 0043).
    expect(await jobToEnd(started.jobId)).toMatchObject({ kind: "backup_create", status: "completed" });
    expect(backup.sizeBytes).toBeGreaterThan(0);
    const observations = backup.manifest!.collections.find((part) => part.name === "observations");
    expect(observations?.rows).toBe(await deps().db.$count(observationsCollection.table));
    expect(backup.manifest!.collections.map((part) => part.name)).toEqual(expect.arrayContaining(["users", "sessions", "api_keys", "files", "settings"]));
    expect(backup.manifest!.collections.map((part) => part.name)).not.toContain("backups");
    expect(backup.manifest!.schemaVersion).toBeGreaterThan(13);
    // Format 2: the collections in parts, each an object of its own beside the manifest, their sizes adding up to the backup's.
    expect(backup.manifest!.format).toBe("meridian-backup/2");
    let stored = 0;
    for (const part of backup.manifest!.parts) {
      expect(part.key).toMatch(new RegExp(`^backups/${backup.id}/part-\\d{4}\\.br$`));
      const size = (await deps().storage.head(part.key))?.contentLength;
      expect(size).toBe(part.sizeBytes);
      stored += size!;
    }
    expect(stored).toBe(backup.sizeBytes);
    expect(await deps().storage.head(`backups/${backup.id}/manifest.json`)).toBeDefined();

    const list = (await must("/api/v1/admin/backups", { token: adminToken }, 200)) as { items: Array<Record<string, unknown>> };
    expect(list.items[0]).toMatchObject({ id: backup.id, status: "verified", sizeBytes: backup.sizeBytes, createdAt: backup.createdAt });
    expect(list.items[0]).not.toHaveProperty("manifest");
  });

  it("fails an attempt whose COPY loses its connection, and the retry writes every collection whole", async () => {
    await seedObservation("Outlives a lost connection");
    // The archive thread's COPY of a later collection waits on this lock, halfway through the archive.
    const blocker = postgres(server.databaseUrl, { max: 1, onnotice: () => undefined });
    await blocker`begin`;
    await blocker`lock table push_subscriptions in access exclusive mode`;
    let backupId: string;
    try {
      const response = await admin("/api/v1/admin/backups", { method: "POST" });
      expect(response.status).toBe(202);
      backupId = ((await response.json()) as Backup).id;
      const waitingCopy = async () => {
        const [row] = await deps().db.execute<{ pid: number }>(
          sql`select pid from pg_stat_activity where wait_event_type = 'Lock' and query ilike 'copy "push_subscriptions"%'`,
        );
        return row?.pid;
      };
      const first = await until("the archive's COPY to wait on the lock", waitingCopy);
      await deps().db.execute(sql`select pg_terminate_backend(${first})`);
      // That attempt fails, and the job's retry comes back to the same place on a new connection.
      const second = await until("the retry's COPY to wait on the lock", async () => {
        const pid = await waitingCopy();
        return pid !== undefined && pid !== first ? pid : undefined;
      });
      expect(second).not.toBe(first);
      expect((await backupOf(backupId)).status).toBe("running");
    } finally {
      await blocker`rollback`;
      await blocker.end();
    }
    const backup = await backupToSettle(backupId);
    expect(backup).toMatchObject({ status: "verified", error: null });
    // A COPY cut short must never pass for a whole one: every collection's rows are all there.
    // Only rows written before the snapshot count: background jobs (the analytics summary) may write after it.
    const snapshotAt = backup.manifest!.snapshotAt;
    for (const part of backup.manifest!.collections) {
      const [row] = await deps().db.execute<{ rows: number }>(
        sql`select count(*)::int as rows from ${sql.identifier(part.name)} where created_at <= ${snapshotAt}::timestamptz`,
      );
      expect({ collection: part.name, rows: part.rows }).toEqual({ collection: part.name, rows: row!.rows });
    }
  });

  it("verifies on request, and fails a backup whose archive no longer matches its manifest", async () => {
    const backup = await takeBackup();
    const verify = await admin(`/api/v1/admin/backups/${backup.id}/verify`, { method: "POST" });
    expect(verify.status).toBe(202);
    expect(await jobToEnd(((await verify.json()) as { jobId: string }).jobId)).toMatchObject({ status: "completed", result: { status: "verified" } });

    // One byte changed in the middle of the largest part.
    const largest = backup.manifest!.parts.reduce((most, part) => (part.sizeBytes > most.sizeBytes ? part : most));
    const stored = await deps().storage.get(largest.key);
    const bytes = Buffer.concat(await stored!.body.toArray());
    const middle = Math.floor(bytes.length / 2);
    bytes[middle] = bytes[middle]! ^ 0xff;
    await deps().storage.put(largest.key, bytes);
    const again = await admin(`/api/v1/admin/backups/${backup.id}/verify`, { method: "POST" });
    const job = await jobToEnd(((await again.json()) as { jobId: string }).jobId);
    expect(job.status).toBe("failed");
    const failed = await backupOf(backup.id);
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatch(new RegExp(`Verification failed: .*${largest.key.slice(largest.key.lastIndexOf("/") + 1)}`));
    // A failed backup cannot be restored.
    const restore = await admin(`/api/v1/admin/backups/${failed.id}/restore`, { method: "POST" });
    await expectProblem(restore, 409, "BACKUP_NOT_READY");
  });

  it("verifies again a backup a read-back failed once it reads back whole, each verification saying what it found", async () => {
    const backup = await takeBackup();
    const part = backup.manifest!.parts[0]!;
    const original = Buffer.concat(await (await deps().storage.get(part.key))!.body.toArray());
    const verify = async () => {
      const { jobId } = (await must(`/api/v1/admin/backups/${backup.id}/verify`, { method: "POST", token: adminToken }, 202)) as { jobId: string };
      return jobToEnd(jobId);
    };
    await deps().storage.delete(part.key);
    const missing = await verify();
    expect(missing.status).toBe("failed");
    expect(missing.error).toMatch(/^Verification failed: .*is missing/);
    expect((await backupOf(backup.id)).error).toMatch(/^Verification failed: .*is missing/);

    // Storage mended: the archive reads back whole, and the backup is usable again.
    await deps().storage.put(part.key, original);
    expect(await verify()).toMatchObject({ status: "completed", error: null, result: { status: "verified" } });
    expect(await backupOf(backup.id)).toMatchObject({ status: "verified", error: null });

    // One that failed another way (its job cancelled: its objects go) stays failed, and its verification says why.
    await backupsCollection.update(deps().db, backup.id, (doc) => ({ ...doc, status: "failed", error: "Cancelled by an administrator" }));
    const stays = await verify();
    expect(stays).toMatchObject({ status: "failed", result: { status: "failed" } });
    expect(stays.error).toBe("The backup failed earlier and stays failed: Cancelled by an administrator");
    expect(await backupOf(backup.id)).toMatchObject({ status: "failed", error: "Cancelled by an administrator" });
  });

  it("refuses a second backup while one runs, naming it", async () => {
    // A lock on a collection holds the first backup's COPY, so it is still running when the second is asked for.
    const blocker = postgres(server.databaseUrl, { max: 1, onnotice: () => undefined });
    let first: Backup | undefined;
    try {
      await blocker`begin`;
      await blocker`lock table observations in access exclusive mode`;
      const response = await admin("/api/v1/admin/backups", { method: "POST" });
      first = (await response.json()) as Backup;
      await until(
        "the backup to wait for the lock",
        async () => ((await must(`/api/v1/admin/jobs/${first!.jobId}`, { token: adminToken }, 200)) as Job).status === "running",
      );
      const problem = await expectProblem(await admin("/api/v1/admin/backups", { method: "POST" }), 409, "BACKUP_RUNNING");
      expect(JSON.stringify(problem)).toContain(first.id);
    } finally {
      await blocker`rollback`.catch(() => undefined);
      await blocker.end();
    }
    expect((await backupToSettle(first.id)).status).toBe("verified");
  });

  it("restores all or nothing: data back as it was, revoked credentials stay revoked, backups kept, writes refused meanwhile, a quick scan after", async () => {
    const deletedLater = await seedObservation("Deleted after the backup");
    const keptKey = await createApiKey(server, owner.token, "kept");
    const revokedKey = await createApiKey(server, owner.token, "revoked later");
    const backup = await takeBackup();
    expect(backup.status).toBe("verified");

    // Changes after the backup: a new observation, one deleted, a key revoked, a key and a user created.
    await seedObservation("After the backup");
    await deps().db.execute(sql`delete from observations where id = ${deletedLater.id}`);
    expect((await server.request(`/api/v1/user/api-keys/${revokedKey.id}`, { method: "DELETE", token: owner.token })).status).toBe(204);
    const newKey = await createApiKey(server, owner.token, "after the backup");
    const newcomer = await createAccount(server);
    const namesBefore = await observationNames(owner.token);
    expect(namesBefore).toContain("After the backup");
    expect(namesBefore).not.toContain("Deleted after the backup");

    const schemaShape = async () =>
      deps().db.execute(sql`
        select tablename, indexname, indexdef from pg_indexes where schemaname = 'public'
        union all select conrelid::regclass::text, conname, pg_get_constraintdef(oid) from pg_constraint where connamespace = 'public'::regnamespace
        order by 1, 2, 3`);
    const shapeBefore = await schemaShape();
    // Hold a lock on a restored table no request below reads: the restore waits in its load, under maintenance.
    const blocker = postgres(server.databaseUrl, { max: 1, onnotice: () => undefined });
    let jobId: string;
    try {
      await blocker`begin`;
      await blocker`lock table push_subscriptions in access exclusive mode`;
      const restore = await admin(`/api/v1/admin/backups/${backup.id}/restore`, { method: "POST" });
      expect(restore.status).toBe(202);
      jobId = ((await restore.json()) as { jobId: string }).jobId;
      await until("maintenance to begin", async () => ((await (await server.request("/api/v1/maintenance")).json()) as { active: boolean }).active);
      const write = await server.request("/projects", { method: "POST", token: owner.token, json: { name: "During the restore" } });
      const problem = await expectProblem(write, 503, "MAINTENANCE");
      expect(problem.detail).toMatch(/Restoring/);
      expect(write.headers.get("retry-after")).toBe("30");
      await must("/projects", { token: owner.token }, 200);
      await expectProblem(await admin(`/api/v1/admin/backups/${backup.id}/restore`, { method: "POST" }), 503, "MAINTENANCE");
    } finally {
      await blocker`rollback`.catch(() => undefined);
      await blocker.end();
    }
    const job = await jobToEnd(jobId);
    expect(job).toMatchObject({ status: "completed", result: { backupId: backup.id } });
    expect(job.result!.credentialsKeptRevoked).toBeGreaterThanOrEqual(1);
    expect(await (await server.request("/api/v1/maintenance")).json()).toMatchObject({ active: false });
    // The swapped-in tables carry the same indexes and constraints, under the same names, as the migrations made.
    expect(await schemaShape()).toEqual(shapeBefore);
    const leftovers = await deps().db.execute(sql`select nspname from pg_namespace where nspname in ('meridian_restore', 'meridian_previous')`);
    expect(leftovers).toEqual([]);

    const names = await observationNames(owner.token);
    expect(names).toContain("Deleted after the backup");
    expect(names).not.toContain("After the backup");
    expect((await server.request("/api/v1/auth/me", { token: keptKey.key })).status).toBe(200);
    expect((await server.request("/api/v1/auth/me", { token: revokedKey.key })).status).toBe(401);
    expect((await server.request("/api/v1/auth/me", { token: newKey.key })).status).toBe(401);
    expect((await server.request("/api/v1/auth/me", { token: newcomer.token })).status).toBe(401);
    // Backup records are not rolled back: later backups are still listed.
    const list = (await must("/api/v1/admin/backups", { token: adminToken }, 200)) as { items: Backup[] };
    expect(list.items.map((item) => item.id)).toContain(backup.id);
    expect(list.items.length).toBeGreaterThan(1);
    const scan = (await must(`/api/v1/admin/integrity/scans/${job.result!.scanId as string}`, { token: adminToken }, 200)) as { kind: string };
    expect(scan.kind).toBe("quick");
    const audit = (await must("/api/v1/admin/audit", { token: adminToken }, 200)) as { items: Array<{ action: string }> };
    expect(audit.items.map((entry) => entry.action)).toContain("backup.restored");
    // Writes work again.
    expect((await server.request("/projects", { method: "POST", token: owner.token, json: { name: "After the restore" } })).status).toBe(201);
  });

  it("leaves no network plan made before it in force: the plan is made again from the restored data", async () => {
    const { createObservation } = jsonApi(() => server);
    const mentioned = (plan: NetworkPlanDoc | null) => new Set([...(plan?.slots ?? []), ...(plan?.unscheduled ?? [])].map((item) => item.observationId));
    const kept = await createObservation(owner, { projectId, observatoryId, name: "Planned before the backup" });
    const backup = await takeBackup();
    const gone = await createObservation(owner, { projectId, observatoryId, name: "Submitted after the backup" });
    await until("the plan to hold the observation the restore takes away", async () => mentioned(await readNetworkPlan(deps().db)).has(gone.id));
    const restore = await admin(`/api/v1/admin/backups/${backup.id}/restore`, { method: "POST" });
    expect(await jobToEnd(((await restore.json()) as { jobId: string }).jobId)).toMatchObject({ status: "completed" });
    // As the restore's end is read: no plan (or one made since, from the restored data), never the one before it.
    expect(mentioned(await readNetworkPlan(deps().db)).has(gone.id)).toBe(false);
    const plan = await until("a plan made from the restored data", async () => {
      const read = await readNetworkPlan(deps().db);
      return mentioned(read).has(kept.id) && read;
    });
    expect(mentioned(plan).has(gone.id)).toBe(false);
  });

  it("brings every restored collection back row for row, a large one read and loaded in block ranges, parts at once", async () => {
    // Left out: the analytics summary, a cache the worker's minute job writes whenever it runs, before or after the swap.
    const ANALYTICS_SUMMARY_ID = "analytics-summary";
    const first = await seedObservation("Round trip 0");
    // Enough rows that the observations are split between connections, rows cut at chunk ends included. Cancelled ones,
    // which the network planner and dispatch pass over: 3,000 pending copies made the plan after this restore (and after
    // every later change in this file) plan them all, over half a minute of the server's CPU on a loaded machine.
    await deps().db.execute(sql`
      insert into observations (id, doc, created_at, updated_at, project_id, observatory_id, owner_id, status, priority, status_changed_at)
      select ${first.id} || '_' || g, jsonb_set(jsonb_set(doc, '{name}', to_jsonb('Round trip ' || g)), '{status}', '"cancelled"'), created_at, updated_at,
        project_id, observatory_id, owner_id, 'cancelled', priority, status_changed_at
      from observations, generate_series(1, 3000) g where id = ${first.id}`);
    // What autovacuum does in time: a backup cuts ranges by PostgreSQL's estimate of each heap's size.
    await deps().db.execute(sql`analyze observations`);
    // A credential records its use (at most once a minute, its row's time too): the test's own requests around the
    // backup may record one on either side of its snapshot, on a slow machine a minute after the rows below were read.
    const USE_RECORDED = new Set(["sessions", "api_keys", "observatory_keys"]);
    const rowText = (table: string) =>
      USE_RECORDED.has(table) ? sql`(to_jsonb(t) - 'updated_at' || jsonb_build_object('doc', t.doc - 'lastUsedAt'))::text` : sql`t::text`;
    const rowsOf = async () => {
      const rows: Record<string, string[]> = {};
      for (const table of RESTORED_COLLECTIONS)
        rows[table] = (
          await deps().db.execute<{ row: string }>(
            sql`select ${rowText(table)} as row from ${sql.identifier(table)} t where t.id <> ${ANALYTICS_SUMMARY_ID} order by 1`,
          )
        ).map((r) => r.row);
      return rows;
    };
    const before = await rowsOf();
    const backup = await takeBackup();
    expect(backup.manifest!.collections.find((part) => part.name === "observations")!.bytes).toBeGreaterThan(3 * PARALLEL_SECTION_BYTES);
    // The observations' heap is over a megabyte: read in block ranges, one part each, the first from block 0 and the last to the end.
    const ranges = backup.manifest!.parts.flatMap((part) => part.sections).filter((section) => section.name === "observations");
    expect(ranges.length).toBeGreaterThanOrEqual(2);
    expect(backup.manifest!.collections.find((part) => part.name === "observations")!.sections).toBe(ranges.length);
    expect(ranges[0]!.blocks!.from).toBe(0);
    expect(ranges.at(-1)!.blocks!.to).toBeNull();
    for (let index = 1; index < ranges.length; index++) expect(ranges[index]!.blocks!.from).toBe(ranges[index - 1]!.blocks!.to);

    await deps().db.execute(sql`delete from observations where id like ${`${first.id}_1%`}`);
    await deps().db.execute(sql`update observations set doc = jsonb_set(doc, '{name}', '"Renamed"') where id = ${first.id}`);
    await seedObservation("After the round trip's backup");
    const restore = await admin(`/api/v1/admin/backups/${backup.id}/restore`, { method: "POST" });
    const job = await jobToEnd(((await restore.json()) as { jobId: string }).jobId);
    expect(job).toMatchObject({ status: "completed" });

    // What the restore adds after its swap: its audit entry, and the quick scan it starts (with whatever that scan finds).
    const scanId = job.result!.scanId as string;
    const ownRow = (row: string) => row.includes('""action"": ""backup.restored""') || row.includes(scanId);
    const after = await rowsOf();
    for (const table of RESTORED_COLLECTIONS) {
      const added = after[table]!.filter((row) => ownRow(row) && !before[table]!.includes(row));
      expect(added, table).toHaveLength(table === "audit_log" || table === "integrity_scans" ? 1 : table === "integrity_issues" ? added.length : 0);
      after[table] = after[table]!.filter((row) => !added.includes(row));
    }
    for (const table of RESTORED_COLLECTIONS) expect(after[table], table).toEqual(before[table]);
  });

  it("changes nothing when a part does not match its manifest or is missing, and refuses a backup from a newer schema", async () => {
    const backup = await takeBackup();
    await seedObservation("Survives a bad restore");
    const last = backup.manifest!.parts.at(-1)!;
    const stored = await deps().storage.get(last.key);
    const bytes = Buffer.concat(await stored!.body.toArray());
    await deps().storage.put(last.key, bytes.subarray(0, bytes.length - 40));
    const restore = await admin(`/api/v1/admin/backups/${backup.id}/restore`, { method: "POST" });
    const job = await jobToEnd(((await restore.json()) as { jobId: string }).jobId);
    expect(job.status).toBe("failed");
    expect(job.error).toMatch(/nothing was restored/);
    expect(await observationNames(owner.token)).toContain("Survives a bad restore");
    expect(await (await server.request("/api/v1/maintenance")).json()).toMatchObject({ active: false });

    // A part gone from storage: refused by name, nothing touched.
    await deps().storage.put(last.key, bytes);
    const missing = backup.manifest!.parts[0]!;
    await deps().storage.delete(missing.key);
    const again = await jobToEnd(((await (await admin(`/api/v1/admin/backups/${backup.id}/restore`, { method: "POST" })).json()) as { jobId: string }).jobId);
    expect(again.status).toBe("failed");
    expect(again.error).toMatch(new RegExp(`nothing was restored: .*${missing.key.slice(missing.key.lastIndexOf("/") + 1)} is missing`));
    expect(await observationNames(owner.token)).toContain("Survives a bad restore");

    await backupsCollection.update(deps().db, backup.id, (doc: BackupDoc) => ({ ...doc, manifest: { ...doc.manifest!, schemaVersion: 9999 } }));
    const problem = await expectProblem(await admin(`/api/v1/admin/backups/${backup.id}/restore`, { method: "POST" }), 409, "BACKUP_TOO_NEW");
    expect(problem.detail).toMatch(/9999/);
    await expectProblem(await admin("/api/v1/admin/backups/bak_missing/restore", { method: "POST" }), 404, "NOT_FOUND");
  });
});

describe("refusals", () => {
  it("refuses to verify or restore an unfinished backup, a second restore, and a backup-first cleanup while a backup runs", async () => {
    const running = await runningBackupRecord("backups/bak_unfinished/archive.gz");
    try {
      await expectProblem(await admin(`/api/v1/admin/backups/${running.id}/verify`, { method: "POST" }), 409, "BACKUP_NOT_READY");
      await expectProblem(await admin(`/api/v1/admin/backups/${running.id}/restore`, { method: "POST" }), 409, "BACKUP_NOT_READY");
      // The cleanup's record and its backup start together or not at all.
      const jobsBefore = await deps().db.$count(jobsCollection.table);
      await expectProblem(
        await admin("/api/v1/admin/cleanup/observations", { method: "POST", json: { dryRun: false, createBackup: true } }),
        409,
        "BACKUP_RUNNING",
      );
      expect(await deps().db.$count(jobsCollection.table)).toBe(jobsBefore);
    } finally {
      await deps().db.execute(sql`delete from backups where id = ${running.id}`);
    }

    const backup = await takeBackup();
    const queued = await recordHeldJob(deps(), { kind: "backup_restore", startedBy: null, subjectId: backup.id });
    try {
      const problem = await expectProblem(await admin(`/api/v1/admin/backups/${backup.id}/restore`, { method: "POST" }), 409, "RESTORE_RUNNING");
      expect(problem.detail).toContain(queued.id);
    } finally {
      await deps().db.execute(sql`delete from jobs where id = ${queued.id}`);
    }
    await expectProblem(await admin("/api/v1/admin/backups/bak_missing/verify", { method: "POST" }), 404, "NOT_FOUND");
    await expectProblem(await admin("/api/v1/admin/backups/bak_missing"), 404, "NOT_FOUND");
  });

  it("refuses a restore while an observation cleanup is queued or running, naming it (it would go on deleting what the restore brings back)", async () => {
    const backup = await takeBackup();
    const cleanup = await recordHeldJob(deps(), { kind: "observation_cleanup", startedBy: null });
    const restores = async () => (await deps().db.execute(sql`select id from jobs where kind = 'backup_restore'`)).length;
    const restoresBefore = await restores();
    try {
      const whileQueued = await expectProblem(await admin(`/api/v1/admin/backups/${backup.id}/restore`, { method: "POST" }), 409, "CLEANUP_RUNNING");
      expect(whileQueued.detail).toContain(cleanup.id);
      await jobsCollection.update(deps().db, cleanup.id, (doc) => ({ ...doc, status: "running" }));
      const whileRunning = await expectProblem(await admin(`/api/v1/admin/backups/${backup.id}/restore`, { method: "POST" }), 409, "CLEANUP_RUNNING");
      expect(whileRunning.detail).toContain(cleanup.id);
      expect(await restores()).toBe(restoresBefore);
    } finally {
      await deps().db.execute(sql`delete from jobs where id = ${cleanup.id}`);
    }
  });
});

describe("backups and restores", () => {
  it("starts no backup, asked for or scheduled, while a restore is queued or running, and no restore while a backup archives", async () => {
    const backup = await takeBackup();
    const restore = await recordHeldJob(deps(), { kind: "backup_restore", startedBy: null, subjectId: backup.id });
    const backupsBefore = await deps().db.$count(backupsCollection.table);
    await must("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { backupSchedule: "30 2 * * *" } }, 200);
    try {
      for (const status of ["queued", "running"] as const) {
        await jobsCollection.update(deps().db, restore.id, (doc) => ({ ...doc, status }));
        const refused = await expectProblem(await admin("/api/v1/admin/backups", { method: "POST" }), 409, "RESTORE_RUNNING");
        expect(refused.detail).toContain(restore.id);
        // The schedule's tick waits for its next firing instead.
        expect(await startScheduledBackup({ deps: deps(), at: new Date("2026-11-20T02:30:00Z") })).toBeNull();
      }
      expect(await deps().db.$count(backupsCollection.table)).toBe(backupsBefore);
    } finally {
      await deps().db.execute(sql`delete from jobs where id = ${restore.id}`);
      await must("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { backupSchedule: null } }, 200);
    }

    const archiving = await runningBackupRecord("backups/bak_archiving/manifest.json");
    try {
      const refused = await expectProblem(await admin(`/api/v1/admin/backups/${backup.id}/restore`, { method: "POST" }), 409, "BACKUP_RUNNING");
      expect(refused.detail).toContain(archiving.id);
    } finally {
      await deps().db.execute(sql`delete from backups where id = ${archiving.id}`);
    }
  });
});

describe("retention and schedules", () => {
  const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
  async function seedBackup(status: BackupDoc["status"], startedAt: string) {
    const id = backupsCollection.newId();
    const objectKey = `backups/${id}/archive.gz`;
    await deps().storage.put(objectKey, Buffer.from("archive"));
    await deps().storage.put(`backups/${id}/manifest.json`, Buffer.from("{}"));
    await backupsCollection.insert(
      deps().db,
      {
        status,
        trigger: "manual",
        objectKey,
        sizeBytes: 7,
        manifest: null,
        jobId: null,
        startedBy: null,
        startedAt,
        finishedAt: startedAt,
        verifiedAt: null,
        error: null,
      },
      id,
    );
    return id;
  }

  it("deletes backups older than the days given, never the newest verified one, keeping keepMin, objects first", async () => {
    await deps().db.execute(sql`delete from backups`);
    const newestVerified = await seedBackup("verified", daysAgo(40));
    const olderVerified = await seedBackup("verified", daysAgo(50));
    const oldCompleted = await seedBackup("completed", daysAgo(45));
    const oldFailed = await seedBackup("failed", daysAgo(41));
    const recent = await seedBackup("failed", daysAgo(1));

    const preview = (await must(
      "/api/v1/admin/backups/cleanup",
      { method: "POST", token: adminToken, json: { keepDays: 30, keepMin: 2, dryRun: true } },
      200,
    )) as {
      deleted: Array<{ id: string }>;
      dryRun: boolean;
    };
    // Kept: the newest verified (40 days), and the two newest usable (40 and 45 days); the recent one is young.
    expect(preview.deleted.map((item) => item.id).sort()).toEqual([olderVerified, oldFailed].sort());
    expect(preview.dryRun).toBe(true);
    expect(await deps().storage.head(`backups/${olderVerified}/archive.gz`)).toBeDefined();

    const done = (await must("/api/v1/admin/backups/cleanup", { method: "POST", token: adminToken, json: { keepDays: 30 } }, 200)) as {
      deleted: Array<{ id: string }>;
    };
    expect(done.deleted.map((item) => item.id).sort()).toEqual([olderVerified, oldCompleted, oldFailed].sort());
    for (const id of [olderVerified, oldCompleted, oldFailed]) {
      expect(await deps().storage.head(`backups/${id}/archive.gz`)).toBeUndefined();
      expect(await deps().storage.head(`backups/${id}/manifest.json`)).toBeUndefined();
    }
    const left = (await must("/api/v1/admin/backups", { token: adminToken }, 200)) as { items: Array<{ id: string }> };
    expect(left.items.map((item) => item.id).sort()).toEqual([newestVerified, recent].sort());
    await expectProblem(await admin("/api/v1/admin/backups/cleanup", { method: "POST", json: { keepDays: -1 } }), 400, "VALIDATION_FAILED");
    await expectProblem(await admin("/api/v1/admin/backups/cleanup", { method: "POST", json: { keepDays: 3, extra: 1 } }), 400, "VALIDATION_FAILED");
  });

  it("keeps a backup a queued or running restore is about to read, however old", async () => {
    await deps().db.execute(sql`delete from backups`);
    const newestVerified = await seedBackup("verified", daysAgo(40));
    const restoring = await seedBackup("verified", daysAgo(50));
    const oldCompleted = await seedBackup("completed", daysAgo(45));
    const restore = await recordHeldJob(deps(), { kind: "backup_restore", startedBy: null, subjectId: restoring });
    const cleanUp = async (dryRun: boolean) =>
      (
        (await must("/api/v1/admin/backups/cleanup", { method: "POST", token: adminToken, json: { keepDays: 30, dryRun } }, 200)) as {
          deleted: Array<{ id: string }>;
        }
      ).deleted.map((item) => item.id);
    try {
      expect(await cleanUp(true)).toEqual([oldCompleted]);
      await jobsCollection.update(deps().db, restore.id, (doc) => ({ ...doc, status: "running" }));
      expect(await cleanUp(false)).toEqual([oldCompleted]);
      expect(await backupOf(restoring)).toMatchObject({ status: "verified" });
      expect(await deps().storage.head(`backups/${restoring}/archive.gz`)).toBeDefined();
      const left = (await must("/api/v1/admin/backups", { token: adminToken }, 200)) as { items: Array<{ id: string }> };
      expect(left.items.map((item) => item.id).sort()).toEqual([newestVerified, restoring].sort());
    } finally {
      await deps().db.execute(sql`delete from jobs where id = ${restore.id}`);
    }
  });

  it("starts a scheduled backup when its cron fires, applies retention after it, and tells admins when one fails", async () => {
    await deps().db.execute(sql`delete from backups`);
    const ancient = await seedBackup("completed", daysAgo(400));
    await must(
      "/api/v1/admin/settings",
      { method: "PUT", token: adminToken, json: { backupSchedule: "30 2 * * *", backupKeepDays: 30, backupKeepMin: 0 } },
      200,
    );
    expect(await startScheduledBackup({ deps: deps(), at: new Date("2026-11-20T02:31:00Z") })).toBeNull();
    const id = await startScheduledBackup({ deps: deps(), at: new Date("2026-11-20T02:30:00Z") });
    const backup = await backupToSettle(id!);
    expect(backup).toMatchObject({ status: "verified", trigger: "scheduled" });
    await until("retention after the scheduled backup", async () => (await backupsCollection.get(deps().db, ancient)) === undefined);

    // A scheduled backup whose job used up its attempts: failed, and every server admin is told.
    const doomed = await seedBackup("running", new Date().toISOString());
    await backupsCollection.update(deps().db, doomed, (doc) => ({ ...doc, trigger: "scheduled" }));
    const job = await recordHeldJob(deps(), { kind: "backup_create", startedBy: null, subjectId: doomed });
    await failBackup({ deps: deps(), jobId: job.id, backupId: doomed, then: null, error: "storage unreachable" });
    expect(await backupOf(doomed)).toMatchObject({ status: "failed", error: "storage unreachable" });
    expect(await jobToEnd(job.id)).toMatchObject({ status: "failed" });
    expect(await deps().storage.head(`backups/${doomed}/archive.gz`)).toBeUndefined();
    const mails = await deps().db.execute<{ subject: string; to: string }>(
      sql`select doc->>'subject' as subject, doc->>'to' as to from email_outbox where doc->>'kind' = 'backup_failed'`,
    );
    expect(mails.map((mail) => mail.subject)).toEqual(["A scheduled backup failed"]);
    await must("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { backupSchedule: null } }, 200);
  });
});

describe("observatories during a restore", () => {
  it("lets an administrator sign in while a restore holds maintenance (the way to end it), and refuses other writes", async () => {
    // As a restore's beginning does: the row and the notice every process's maintenance cache listens for, in one transaction.
    const setMaintenance = (statement: ReturnType<typeof sql>) =>
      deps().db.transaction(async (tx) => {
        await tx.execute(statement);
        await tx.execute(sql`select pg_notify('meridian_cache', ${JSON.stringify({ kind: "maintenance" })})`);
      });
    const maintenanceActive = async () => ((await (await server.request("/api/v1/maintenance")).json()) as { active: boolean }).active;
    try {
      await setMaintenance(sql`insert into maintenance (id, reason) values ('restore', 'Restoring the backup of yesterday')`);
      await until("the server to see the maintenance", maintenanceActive);
      // The SPA's sign-in form calls tRPC's auth.login; the REST twin is exempt too.
      expect((await server.request("/trpc/auth.login", { method: "POST", json: ADMIN })).status).toBe(200);
      expect((await server.request("/api/v1/auth/login", { method: "POST", json: ADMIN })).status).toBe(200);
      await expectProblem(await server.request("/api/v1/projects", { method: "POST", token: adminToken, json: { name: "Refused" } }), 503, "MAINTENANCE");
    } finally {
      await setMaintenance(sql`delete from maintenance`);
      await until("the server to see the maintenance end", async () => !(await maintenanceActive()));
    }
  });

  it("answers a status report with error MAINTENANCE while a restore runs, and takes it again after", async () => {
    const key = (await must(`/observatories/${observatoryId}/api-keys`, { method: "POST", token: owner.token, json: { name: "plugin" } }, 201)) as {
      key: string;
    };
    const attempt = await connectWebSocket(`${server.url.replace(/^http/, "ws")}/ws/observatory`, { authorization: `Bearer ${key.key}` });
    if (!attempt.ok) throw new Error(`upgrade refused: ${attempt.status}`);
    const client = attempt.client;
    const report = (id: string) => client.ws.send(JSON.stringify({ type: "observation_status", id, observationId: "obn_x", status: "in_progress" }));
    try {
      // The row a restore writes while it runs.
      await deps().db.execute(sql`insert into maintenance (id, reason) values ('restore', 'Restoring the backup of yesterday')`);
      report("during");
      expect(await client.waitFor((message) => (message as { id?: string }).id === "during")).toMatchObject({ type: "error", code: "MAINTENANCE" });
      await deps().db.execute(sql`delete from maintenance`);
      report("after");
      // Past maintenance the report is handled as always (here: the plugin has not said hello yet).
      expect(await client.waitFor((message) => (message as { id?: string }).id === "after")).toMatchObject({ type: "error", code: "HELLO_REQUIRED" });
    } finally {
      await deps().db.execute(sql`delete from maintenance`);
      await client.close();
    }
  });
});

describe("health", () => {
  async function backupFindings() {
    const response = await admin("/api/v1/admin/integrity/scans", { method: "POST", json: { kind: "full", collections: ["settings"], checkHealth: true } });
    expect(response.status).toBe(202);
    const { id } = (await response.json()) as { id: string };
    await until(
      "the health scan",
      async () => ((await must(`/api/v1/admin/integrity/scans/${id}`, { token: adminToken }, 200)) as { status: string }).status === "completed",
    );
    const page = (await must(`/api/v1/admin/integrity/scans/${id}/issues?collection=backups`, { token: adminToken }, 200)) as {
      items: Array<{ code: string; severity: string }>;
    };
    return page.items;
  }

  it("reports a last verified backup older than the schedule says, and none once one is verified", async () => {
    await deps().db.execute(sql`delete from backups`);
    await must("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { backupSchedule: "0 3 * * *" } }, 200);
    expect(await backupFindings()).toEqual([expect.objectContaining({ code: "BACKUP_OVERDUE", severity: "critical" })]);
    await takeBackup();
    expect(await backupFindings()).toEqual([]);
    await must("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { backupSchedule: null } }, 200);
    expect(await backupFindings()).toEqual([]);
  });
});

describe("who may", () => {
  const routes: Array<[string, string, unknown?]> = [
    ["POST", "/api/v1/admin/backups"],
    ["GET", "/api/v1/admin/backups"],
    ["GET", "/api/v1/admin/backups/bak_x"],
    ["POST", "/api/v1/admin/backups/bak_x/verify"],
    ["POST", "/api/v1/admin/backups/bak_x/restore"],
    ["POST", "/api/v1/admin/backups/cleanup", { keepDays: 1 }],
  ];
  it("refuses anyone signed out (401) and anyone not a server admin (403)", async () => {
    const key = await createApiKey(server, owner.token, "not an admin");
    for (const [method, path, json] of routes) {
      await expectProblem(await server.request(path, { method, json }), 401, "UNAUTHENTICATED");
      await expectProblem(await server.request(path, { method, json, token: owner.token }), 403, "FORBIDDEN");
      await expectProblem(await server.request(path, { method, json, token: key.key }), 403, "FORBIDDEN");
    }
    expect((await server.request("/api/v1/maintenance")).status).toBe(200);
  });
});
