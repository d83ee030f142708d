import { availableParallelism } from "node:os";
import { backupsCollection, jobsCollection, schemaVersion, usersCollection, type BackupManifest } from "@meridian/db";
import { sql } from "drizzle-orm";
import type postgres from "postgres";
import type { Actor } from "../../platform/actor";
import { recordAudit } from "../audit";
import { invalidateCaches } from "../../platform/cache/request-caches";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { startIntegrityScanIn } from "../integrity";
import { queueNetworkPlan } from "../observations";
import { lockDestructiveJobStarts } from "../../platform/jobs/destructive-jobs";
import { addJob } from "../../platform/jobs/add-job";
import { JobEnded, recordJobStarted, reportJob, reportJobIn } from "../../platform/jobs/tracked-jobs";
import { runExclusively, runUnlessRunning } from "../../platform/system/exclusive-run";
import { beginMaintenanceIn, endMaintenance } from "../system";
import { ARCHIVED_COLLECTIONS, archiveSizeOf, readArchiveBack } from "./archive-io";
import { buildIndexes, copyInto, createSideTable, PARALLEL_SECTION_BYTES, SIDE_SCHEMA } from "./side-tables";
import { inTransaction } from "../../platform/transaction";
import { trackedKind } from "../../platform/jobs/define-job";

/** Held by the restore that runs; one at a time across every process. */
const RESTORE_LOCK = "meridian:restore";
/** Where the replaced tables go at the swap, dropped once it has committed. */
const PREVIOUS_SCHEMA = "meridian_previous";
/**
 * Archived but not rolled back: jobs (the restore's own record among them), the email outbox
 * (a restored pending row would mail people twice) and the audit log (append-only: what was done
 * after the backup stays on record, the restore itself among it). Backup records are not archived.
 */
const KEPT_AS_THEY_ARE = new Set(["jobs", "email_outbox", "audit_log"]);
export const RESTORED_COLLECTIONS = ARCHIVED_COLLECTIONS.filter((name) => !KEPT_AS_THEY_ARE.has(name));

const ignoreNotFound = (error: unknown) => {
  if (!(error instanceof AppError && error.code === "NOT_FOUND")) throw error;
};

/** A restore that must not be retried: the backup is unusable as it is. */
export class RestoreRefused extends Error {}

function refusalOf(backup: Awaited<ReturnType<typeof backupsCollection.get>>, backupId: string): AppError | undefined {
  if (!backup) return new AppError("NOT_FOUND", "No such backup");
  const manifest = backup.doc.manifest;
  if (!manifest || (backup.doc.status !== "verified" && backup.doc.status !== "completed"))
    return new AppError("BACKUP_NOT_READY", `Backup ${backupId} is ${backup.doc.status}; only a completed or verified backup can be restored`);
  if (manifest.schemaVersion > schemaVersion())
    return new AppError(
      "BACKUP_TOO_NEW",
      `Backup ${backupId} was taken at schema version ${manifest.schemaVersion}, newer than this server's ${schemaVersion()}: upgrade the server first`,
    );
  return undefined;
}

/**
 * Starts a restore as a job (202 `{jobId}`); one at a time, never while an observation cleanup
 * is queued or running (409 CLEANUP_RUNNING: it would go on deleting the restored observations),
 * nor while a backup is archiving (409 BACKUP_RUNNING).
 * Refuses a backup that is not finished or is from a newer schema. The lock is the one every
 * destructive job's start takes (the cleanup's start refuses a queued restore under it), so the
 * two checks cannot both pass at once.
 */
export async function startRestore(options: { deps: Deps; actor: Actor | null; backupId: string }) {
  const { deps, actor, backupId } = options;
  return inTransaction(deps, async (t) => {
    await lockDestructiveJobStarts({ t });
    const refusal = refusalOf(await backupsCollection.get(t.tx, backupId), backupId);
    if (refusal) throw refusal;
    const [running] = await t.tx.execute<{ id: string }>(
      sql`select id from jobs where kind = ${trackedKind("backup_restore")} and status in ('queued', 'running') limit 1`,
    );
    if (running) throw new AppError("RESTORE_RUNNING", `A restore is running: job ${running.id}`, { errors: [{ path: "jobId", message: running.id }] });
    const [cleanup] = await t.tx.execute<{ id: string; status: string }>(
      sql`select id, status from jobs where kind = ${trackedKind("observation_cleanup")} and status in ('queued', 'running') limit 1`,
    );
    if (cleanup)
      throw new AppError("CLEANUP_RUNNING", `An observation cleanup is ${cleanup.status}: job ${cleanup.id}; restore once it has ended`, {
        errors: [{ path: "jobId", message: cleanup.id }],
      });
    // A backup's readers and the swap would fight over the live tables (see startBackupIn); the backup's start takes this lock too.
    const [backup] = await t.tx.execute<{ id: string }>(sql`select id from backups where status = 'running' limit 1`);
    if (backup)
      throw new AppError("BACKUP_RUNNING", `A backup is running: ${backup.id}; restore once it has finished`, {
        errors: [{ path: "backupId", message: backup.id }],
      });
    const startedBy = actor?.kind === "user" ? actor.id : null;
    const job = await recordJobStarted({ t, kind: trackedKind("backup_restore"), startedBy, subjectId: backupId, now: t.now() });
    await addJob({ t, name: "backup_restore", payload: { jobId: job.id, backupId, actorId: startedBy } });
    return { jobId: job.id };
  });
}

/** What an earlier, killed restore may have left, and what this one leaves once done. */
const dropWorkSchemas = (connection: postgres.ReservedSql) =>
  connection.unsafe(`drop schema if exists "${SIDE_SCHEMA}" cascade; drop schema if exists "${PREVIOUS_SCHEMA}" cascade`);

/** Connections a restore loads and indexes through at once: one backend per core, within reason. */
const RESTORE_CONNECTIONS = Math.min(4, Math.max(2, availableParallelism()));

/**
 * Swaps the side tables in, in one transaction that also records the restore in the audit log,
 * completes its job and ends maintenance: each live table moves to the previous schema and its
 * loaded twin takes its place, so either all of the backup is in place or none of it. The old
 * tables and the emptied side schema are dropped in the same transaction: a restore that says it
 * completed has left nothing behind, even if its process dies the moment after the commit (the
 * tables' files go at the commit, either way). The job's row is locked first, so a
 * cancel either comes before (and the swap refuses: JobEnded) or finds the job completed. A
 * credential gone or revoked now stays so, a password changed since the backup stays changed, an
 * account disabled now stays disabled and a role removed since stays removed: a restore must never
 * bring back access someone took away, nor leave the server with no enabled administrator.
 */
async function swapIn(deps: Deps, options: { jobId: string; backupId: string; actorId: string | null; manifest: BackupManifest }) {
  const { jobId, backupId, manifest } = options;
  const side = (table: string) => sql.raw(`"${SIDE_SCHEMA}"."${table}"`);
  return inTransaction(deps, async (t) => {
    const size = archiveSizeOf(manifest);
    await reportJobIn({ t, jobId, progress: { done: size, total: size, stage: "swap" } });
    let credentialsKept = 0;
    for (const table of ["sessions", "api_keys", "observatory_keys"]) {
      const gone = await t.tx.execute(
        sql`delete from ${side(table)} r where not exists (select 1 from ${sql.identifier(table)} p where p.id = r.id) returning r.id`,
      );
      credentialsKept += gone.length;
    }
    for (const table of ["api_keys", "observatory_keys"]) {
      const revoked = await t.tx.execute(sql`
        update ${side(table)} r set doc = jsonb_set(r.doc, '{revokedAt}', p.doc->'revokedAt')
        from ${sql.identifier(table)} p
        where p.id = r.id and p.doc->>'revokedAt' is not null and r.doc->>'revokedAt' is null returning r.id`);
      credentialsKept += revoked.length;
    }
    const passwords = await t.tx.execute(sql`
      update ${side("users")} r set doc = jsonb_set(r.doc, '{passwordHash}', p.doc->'passwordHash')
      from users p where p.id = r.id and p.doc->'passwordHash' is distinct from r.doc->'passwordHash' returning r.id`);
    credentialsKept += passwords.length;
    // Access taken away since the backup stays taken: an account disabled now stays disabled, and a
    // role it no longer has (serverAdmin) is not given back.
    const disabled = await t.tx.execute(sql`
      update ${side("users")} r set doc = jsonb_set(r.doc, '{disabled}', 'true'::jsonb)
      from users p where p.id = r.id and p.doc->'disabled' = 'true'::jsonb and r.doc->'disabled' is distinct from 'true'::jsonb returning r.id`);
    credentialsKept += disabled.length;
    const demoted = await t.tx.execute(sql`
      update ${side("users")} r set doc = jsonb_set(r.doc, '{roles}', coalesce(
          (select jsonb_agg(item) from jsonb_array_elements(r.doc->'roles') item where coalesce(p.doc->'roles', '[]'::jsonb) @> jsonb_build_array(item)),
          '[]'::jsonb))
      from users p where p.id = r.id
        and exists (select 1 from jsonb_array_elements(r.doc->'roles') item where not coalesce(p.doc->'roles', '[]'::jsonb) @> jsonb_build_array(item))
      returning r.id`);
    credentialsKept += demoted.length;
    // Never a server without an administrator (account administration refuses the same, LAST_SERVER_ADMIN): when
    // the backup's accounts would hold no enabled server admin (all demoted or disabled since, or made later),
    // today's enabled ones come through as they are now. One whose address the backup gives another account stays out.
    const enabledAdmin = (row: string) => sql.raw(`${row}.doc->'roles' ? 'serverAdmin' and ${row}.doc->'disabled' is distinct from 'true'::jsonb`);
    const adminsKept = await t.tx.execute(sql`
      insert into ${side("users")} as r
        select p.* from users p
         where ${enabledAdmin("p")}
           and not exists (select 1 from ${side("users")} s where ${enabledAdmin("s")})
           and not exists (select 1 from ${side("users")} s where s.email_lower = p.email_lower and s.id <> p.id)
      on conflict (id) do update set doc = excluded.doc, email_lower = excluded.email_lower, updated_at = excluded.updated_at
      returning r.id`);
    credentialsKept += adminsKept.length;

    const [live] = await t.tx.execute<{ schema: string }>(sql`select current_schema() as schema`);
    await t.tx.execute(sql.raw(`create schema "${PREVIOUS_SCHEMA}"`));
    for (const table of RESTORED_COLLECTIONS) {
      await t.tx.execute(sql.raw(`alter table "${table}" set schema "${PREVIOUS_SCHEMA}"`));
      await t.tx.execute(sql.raw(`alter table "${SIDE_SCHEMA}"."${table}" set schema "${live!.schema}"`));
    }
    await t.tx.execute(sql.raw(`drop schema "${PREVIOUS_SCHEMA}" cascade`));
    await t.tx.execute(sql.raw(`drop schema "${SIDE_SCHEMA}" cascade`));
    // Scans that were under way when the backup was taken never finish: close them and their jobs, so new ones may start.
    const closed = await t.tx.execute<{ job_id: string | null }>(sql`
      update integrity_scans set status = 'failed',
        doc = doc || jsonb_build_object('status', 'failed', 'error', 'Interrupted by a restore', 'finishedAt', ${t.now().toISOString()}::text)
      where status in ('queued', 'running') returning doc->>'jobId' as job_id`);
    for (const { job_id } of closed) {
      // A scan's job the live jobs no longer hold has nothing to close (the check is in JS: the transaction stays usable).
      if (job_id) await reportJobIn({ t, jobId: job_id, status: "failed", error: "Interrupted by a restore" }).catch(ignoreNotFound);
    }
    // The network plan in force was made from the data just replaced (its table is not archived): it goes, so dispatch
    // follows no stale run, and one is asked for from the restored data, as every write that can change it asks (a
    // planning under way, which read the replaced data, writes after this commit; the request asked here replaces it).
    await t.tx.execute(sql`delete from network_plans where id = 'current'`);
    await queueNetworkPlan({ t });
    // Every process forgets what it cached (credentials, announcements, observation pages). This one does so as the
    // commit returns, before the job's end can be read and answered: a client told "completed" reads the restored data.
    await invalidateCaches({ t, change: { kind: "all" } });

    // The restored users: the actor as the backup knew them, or as they are now (users were just swapped).
    const actor = options.actorId ? await usersCollection.get(t.tx, options.actorId) : undefined;
    const restored = Object.fromEntries(manifest.collections.filter((part) => RESTORED_COLLECTIONS.includes(part.name)).map((part) => [part.name, part.rows]));
    await recordAudit({
      t,
      actor: actor ? { id: actor.id, name: actor.doc.name } : null,
      action: "backup.restored",
      target: { kind: "backup", id: backupId, name: `Backup of ${manifest.snapshotAt}` },
      scope: { kind: "system", id: "system", name: null },
      before: null,
      after: { snapshotAt: manifest.snapshotAt, collections: restored, credentialsKeptRevoked: credentialsKept },
    });
    // The scans under way were closed above, so a quick scan of the restored data can always start.
    const scan = await startIntegrityScanIn({ t, actor: null, trigger: "restore", kind: "quick", input: {} });
    await reportJobIn({
      t,
      jobId,
      status: "completed",
      progress: { stage: "done" },
      result: { backupId, snapshotAt: manifest.snapshotAt, collections: restored, credentialsKeptRevoked: credentialsKept, scanId: scan.id },
    });
    await endMaintenance({ db: t.tx, jobId });
  });
}

/**
 * Marks the job running and begins maintenance in one transaction, the maintenance row first and
 * then the job's row, locked: a cancel (or the sweep) that failed the job first makes this throw
 * `JobEnded` and nothing begins; one that comes after waits for the commit and then finds the
 * maintenance to end. So maintenance never outlives its restore's job. (The other order would
 * hold the job's row, and so a cancel, while another maintenance row is being written.)
 */
async function beginRestoreMaintenance(deps: Deps, options: { jobId: string; reason: string; size: number }) {
  const { jobId, reason, size } = options;
  await inTransaction(deps, async (t) => {
    await beginMaintenanceIn({ t, reason, jobId });
    const job = await reportJobIn({ t, jobId, status: "running", progress: { done: 0, total: size, stage: "load" } });
    if (!job) throw new JobEnded(jobId, "it had already finished");
  });
}

/**
 * The `backup_restore` job. Writes answer 503 MAINTENANCE while it runs. The archive is read back
 * once: each collection streams into a table of a side schema while its rows and SHA-256 are
 * checked against the manifest, and only a backup that verifies entirely is swapped in. A crash
 * before the swap leaves the data untouched (the retry starts over); a quick integrity scan
 * follows the restore.
 */
export async function runRestore(options: { deps: Deps; jobId: string; backupId: string; actorId: string | null }) {
  const { deps, jobId, backupId } = options;
  return runExclusively({
    deps,
    key: RESTORE_LOCK,
    work: async () => {
      const job = await jobsCollection.get(deps.db, jobId);
      if (!job || job.doc.status === "completed" || job.doc.status === "failed") return;
      const backup = await backupsCollection.get(deps.db, backupId);
      const refusal = refusalOf(backup, backupId);
      if (refusal) throw new RestoreRefused(refusal.message);
      const manifest = backup!.doc.manifest!;
      const size = archiveSizeOf(manifest);
      await beginRestoreMaintenance(deps, { jobId, reason: `Restoring the backup of ${manifest.snapshotAt}`, size });
      const connections = await Promise.all(Array.from({ length: RESTORE_CONNECTIONS }, () => reserveForBackups(deps)));
      const connection = connections[0]!;
      try {
        await dropWorkSchemas(connection);
        await connection`create schema ${connection(SIDE_SCHEMA)}`;
        // Every side table first: parts of one collection load at once, and a collection newer than the backup is restored empty, as it was then.
        for (const table of RESTORED_COLLECTIONS) await createSideTable({ connection, table });
        const sectionBytes = new Map(manifest.collections.map((part) => [part.name, part.bytes]));
        const problems = await readArchiveBack({
          deps,
          manifest,
          // Version 2: one part per connection at once, each loading its rows on its lane's connection.
          lanes: connections.length,
          onSection: async (header, lane) => {
            if (!RESTORED_COLLECTIONS.includes(header.collection)) return undefined;
            // Version 1 is one stream: a large collection's rows are dealt out to every connection instead.
            const large = manifest.format === "meridian-backup/1" && (sectionBytes.get(header.collection) ?? 0) >= PARALLEL_SECTION_BYTES;
            return copyInto({ connections: large ? connections : [connections[lane]!], header });
          },
          onBytes: async (bytes) => void (await reportJob({ deps, jobId, progress: { done: bytes, total: size, stage: "load" } })),
        });
        if (problems.length > 0) throw new RestoreRefused(`The backup does not match its manifest, so nothing was restored: ${problems.join("; ")}`);
        await reportJob({ deps, jobId, progress: { done: size, total: size, stage: "index" } });
        await buildIndexes({ connections, tables: RESTORED_COLLECTIONS });
        await swapIn(deps, { jobId, backupId, actorId: options.actorId, manifest });
      } catch (error) {
        // Cancelled (or taken for abandoned) under way: its release ended the maintenance already; this one too, in case.
        if (error instanceof JobEnded) await endMaintenance({ db: deps.db, jobId });
        throw error;
      } finally {
        // What a failure left (a swap leaves nothing). Maintenance stays for the retry; the last
        // failure (or a cancel) ends it through releaseRestore.
        await dropWorkSchemas(connection).catch(() => undefined);
        for (const reserved of connections) await releaseFromBackups(reserved);
      }
    },
  });
}

/** A connection of the pool with the backups' statement_timeout (BACKUP_STATEMENT_TIMEOUT_MS) instead of the pool's: a COPY or an index build can be long. */
async function reserveForBackups(deps: Deps) {
  const connection = await deps.sql.reserve();
  await connection.unsafe(`set statement_timeout = ${Number(deps.env.BACKUP_STATEMENT_TIMEOUT_MS)}`);
  return connection;
}

/** Back to the pool with the pool's own statement_timeout (the one it connected with). */
async function releaseFromBackups(connection: postgres.ReservedSql) {
  await connection`reset statement_timeout`.catch(() => undefined);
  connection.release();
}

/**
 * What a restore that will not finish held, given back: its maintenance (only its own: a later
 * restore's stays) and, unless another restore runs now, the side schemas it loaded into.
 */
export async function releaseRestore(options: { deps: Deps; jobId: string }) {
  const { deps, jobId } = options;
  await endMaintenance({ db: deps.db, jobId });
  await runUnlessRunning({ deps, key: RESTORE_LOCK, work: (connection) => dropWorkSchemas(connection) });
}
