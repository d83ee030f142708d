import { once } from "node:events";
import { backupsCollection, jobsCollection, schemaVersion, usersCollection } from "@meridian/db";
import { sql } from "drizzle-orm";
import type postgres from "postgres";
import type { Actor } from "../actor";
import { recordAudit } from "../audit/record-audit";
import { CACHE_CHANNEL } from "../cache/request-caches";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { startIntegrityScan } from "../integrity/scan";
import { addJob } from "../jobs/add-job";
import { recordJobStarted, reportJob } from "../jobs/tracked-jobs";
import { runExclusively } from "../system/exclusive-run";
import { beginMaintenance, endMaintenance } from "../system/maintenance";
import type { SectionHeader } from "./archive-format";
import { ARCHIVED_COLLECTIONS, readArchiveBack, type SectionSink } from "./archive-io";

export const RESTORE_JOB_KIND = "backup_restore";
const SIDE_SCHEMA = "meridian_restore";
/** Where the replaced tables go at the swap, dropped once it has committed. */
const PREVIOUS_SCHEMA = "meridian_previous";
/** A side table: the live one's columns, defaults and checks, without indexes (built after the load, as pg_restore does). */
const LIKE_LIVE = "including defaults including constraints including generated including storage";
/**
 * Archived but not rolled back: jobs (the restore's own record among them) and the email outbox
 * (a restored pending row would mail people twice). Backup records are not archived at all.
 */
const KEPT_AS_THEY_ARE = new Set(["jobs", "email_outbox"]);
export const RESTORED_COLLECTIONS = ARCHIVED_COLLECTIONS.filter((name) => !KEPT_AS_THEY_ARE.has(name));

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

/** Starts a restore as a job (202 `{jobId}`); one at a time. Refuses a backup that is not finished or is from a newer schema. */
export async function startRestore(options: { deps: Deps; actor: Actor | null; backupId: string }) {
  const { deps, actor, backupId } = options;
  return deps.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('meridian:restore-start'))`);
    const refusal = refusalOf(await backupsCollection.get(tx, backupId), backupId);
    if (refusal) throw refusal;
    const [running] = await tx.execute<{ id: string }>(sql`select id from jobs where kind = ${RESTORE_JOB_KIND} and status in ('queued', 'running') limit 1`);
    if (running) throw new AppError("RESTORE_RUNNING", `A restore is running: job ${running.id}`, { errors: [{ path: "jobId", message: running.id }] });
    const startedBy = actor?.kind === "user" ? actor.id : null;
    const job = await recordJobStarted(tx, { kind: RESTORE_JOB_KIND, startedBy, subjectId: backupId, now: deps.now() });
    await addJob(tx, "backup_restore", { jobId: job.id, backupId, actorId: startedBy }, { maxAttempts: 3 });
    return { jobId: job.id };
  });
}

/** What an earlier, killed restore may have left, and what this one leaves once done. */
const dropWorkSchemas = (connection: postgres.ReservedSql) =>
  connection.unsafe(`drop schema if exists "${SIDE_SCHEMA}" cascade; drop schema if exists "${PREVIOUS_SCHEMA}" cascade`);

const createSideTable = (connection: postgres.ReservedSql, table: string) =>
  connection.unsafe(`create table "${SIDE_SCHEMA}"."${table}" (like "${table}" ${LIKE_LIVE})`);

/**
 * Gives a loaded side table the live table's primary key, unique constraints and indexes, under
 * the same names (names are per schema), so after the swap the schema is exactly what the
 * migrations made. Built once over all rows, which is quicker than keeping them up row by row.
 */
async function buildIndexes(connection: postgres.ReservedSql, table: string) {
  const constraints = await connection<Array<{ name: string; definition: string }>>`
    select conname as name, pg_get_constraintdef(oid) as definition from pg_constraint
    where conrelid = to_regclass(quote_ident(current_schema()) || '.' || quote_ident(${table})) and contype in ('p', 'u', 'x')`;
  for (const constraint of constraints)
    await connection.unsafe(`alter table "${SIDE_SCHEMA}"."${table}" add constraint "${constraint.name}" ${constraint.definition}`);
  const indexes = await connection<Array<{ definition: string; schema: string }>>`
    select pg_get_indexdef(i.indexrelid) as definition, current_schema() as schema from pg_index i
    where i.indrelid = to_regclass(quote_ident(current_schema()) || '.' || quote_ident(${table}))
      and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)`;
  for (const index of indexes) {
    const live = ` ON ${index.schema === "public" ? "public" : `"${index.schema}"`}.`;
    if (!index.definition.includes(live)) throw new Error(`cannot place the index ${index.definition} on the side table`);
    await connection.unsafe(index.definition.replace(live, ` ON "${SIDE_SCHEMA}".`));
  }
}

/** One collection's rows into its side table, through COPY FROM STDIN on the restore's connection. */
async function copyInto(connection: postgres.ReservedSql, header: SectionHeader): Promise<SectionSink> {
  await createSideTable(connection, header.collection);
  const stream = await connection`copy ${connection(SIDE_SCHEMA)}.${connection(header.collection)} (${connection(header.columns)}) from stdin`.writable();
  let failure: Error | undefined;
  stream.on("error", (error) => (failure = error));
  return {
    async write(chunk) {
      if (failure) throw failure;
      // events.once rejects on "error" and removes both listeners, so waits do not pile up.
      if (!stream.write(chunk)) await once(stream, "drain");
    },
    async end() {
      if (failure) throw failure;
      await new Promise<void>((resolve, reject) => {
        stream.once("error", reject);
        stream.end(resolve);
      });
    },
    abort() {
      stream.destroy(new Error("the restore gave up on this collection"));
    },
  };
}

/**
 * Swaps the side tables in, in one transaction: each live table moves to the previous schema and
 * its loaded twin takes its place, so either all of the backup is in place or none of it (the old
 * tables stay until the commit, and are dropped after it). A credential gone or revoked now stays
 * so, and a password changed since the backup stays changed: a restore must never bring back a key
 * someone revoked.
 */
async function swapIn(deps: Deps): Promise<{ credentialsKept: number }> {
  const side = (table: string) => sql.raw(`"${SIDE_SCHEMA}"."${table}"`);
  return deps.db.transaction(async (tx) => {
    let credentialsKept = 0;
    for (const table of ["sessions", "api_keys", "observatory_keys"]) {
      const gone = await tx.execute(
        sql`delete from ${side(table)} r where not exists (select 1 from ${sql.identifier(table)} p where p.id = r.id) returning r.id`,
      );
      credentialsKept += gone.length;
    }
    for (const table of ["api_keys", "observatory_keys"]) {
      const revoked = await tx.execute(sql`
        update ${side(table)} r set doc = jsonb_set(r.doc, '{revokedAt}', p.doc->'revokedAt')
        from ${sql.identifier(table)} p
        where p.id = r.id and p.doc->>'revokedAt' is not null and r.doc->>'revokedAt' is null returning r.id`);
      credentialsKept += revoked.length;
    }
    const passwords = await tx.execute(sql`
      update ${side("users")} r set doc = jsonb_set(r.doc, '{passwordHash}', p.doc->'passwordHash')
      from users p where p.id = r.id and p.doc->'passwordHash' is distinct from r.doc->'passwordHash' returning r.id`);
    credentialsKept += passwords.length;

    const [live] = await tx.execute<{ schema: string }>(sql`select current_schema() as schema`);
    await tx.execute(sql.raw(`create schema "${PREVIOUS_SCHEMA}"`));
    for (const table of RESTORED_COLLECTIONS) {
      await tx.execute(sql.raw(`alter table "${table}" set schema "${PREVIOUS_SCHEMA}"`));
      await tx.execute(sql.raw(`alter table "${SIDE_SCHEMA}"."${table}" set schema "${live!.schema}"`));
    }
    // Scans that were under way when the backup was taken never finish: close them, so new ones may start.
    await tx.execute(sql`
      update integrity_scans set status = 'failed',
        doc = doc || jsonb_build_object('status', 'failed', 'error', 'Interrupted by a restore', 'finishedAt', ${deps.now().toISOString()}::text)
      where status in ('queued', 'running')`);
    // Every process forgets what it cached about credentials and announcements (anything but a known change clears all).
    await tx.execute(sql`select pg_notify(${CACHE_CHANNEL}, ${JSON.stringify({ kind: "all" })})`);
    return { credentialsKept };
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
  return runExclusively(deps, "meridian:restore", async () => {
    const job = await jobsCollection.get(deps.db, jobId);
    if (!job || job.doc.status === "completed" || job.doc.status === "failed") return;
    const backup = await backupsCollection.get(deps.db, backupId);
    const refusal = refusalOf(backup, backupId);
    if (refusal) throw new RestoreRefused(refusal.message);
    const manifest = backup!.doc.manifest!;
    await reportJob(deps, jobId, { status: "running", progress: { done: 0, total: manifest.archive.sizeBytes, stage: "load" } });
    await beginMaintenance(deps, { reason: `Restoring the backup of ${manifest.snapshotAt}`, jobId });
    const connection = await deps.sql.reserve();
    let credentialsKept = 0;
    try {
      await dropWorkSchemas(connection);
      await connection`create schema ${connection(SIDE_SCHEMA)}`;
      const loaded = new Set<string>();
      const problems = await readArchiveBack(deps, manifest, {
        onSection: async (header) => {
          if (!RESTORED_COLLECTIONS.includes(header.collection)) return undefined;
          loaded.add(header.collection);
          return copyInto(connection, header);
        },
        onBytes: async (bytes) => void (await reportJob(deps, jobId, { progress: { done: bytes, total: manifest.archive.sizeBytes, stage: "load" } })),
      });
      if (problems.length > 0) throw new RestoreRefused(`The backup does not match its manifest, so nothing was restored: ${problems.join("; ")}`);
      // A collection newer than the backup is restored empty, as it was then.
      for (const table of RESTORED_COLLECTIONS.filter((name) => !loaded.has(name))) await createSideTable(connection, table);
      for (const table of RESTORED_COLLECTIONS) await buildIndexes(connection, table);
      await reportJob(deps, jobId, { progress: { done: manifest.archive.sizeBytes, total: manifest.archive.sizeBytes, stage: "swap" } });
      ({ credentialsKept } = await swapIn(deps));
    } finally {
      await dropWorkSchemas(connection).catch(() => undefined);
      connection.release();
      await endMaintenance(deps.db);
    }
    deps.caches.clear();
    const actor = options.actorId ? await usersCollection.get(deps.db, options.actorId) : undefined;
    const restored = Object.fromEntries(manifest.collections.filter((part) => RESTORED_COLLECTIONS.includes(part.name)).map((part) => [part.name, part.rows]));
    await deps.db.transaction(async (tx) => {
      await recordAudit(tx, {
        actor: actor ? { id: actor.id, name: actor.doc.name } : null,
        action: "backup.restored",
        target: { kind: "backup", id: backupId, name: `Backup of ${manifest.snapshotAt}` },
        scope: { kind: "system", id: "system", name: null },
        before: null,
        after: { snapshotAt: manifest.snapshotAt, collections: restored, credentialsKeptRevoked: credentialsKept },
      });
    });
    let scanId: string | null = null;
    try {
      scanId = (await startIntegrityScan({ deps, actor: null, kind: "quick", input: {} })).id;
    } catch (error) {
      if (!(error instanceof AppError && error.code === "SCAN_RUNNING")) throw error;
    }
    await reportJob(deps, jobId, {
      status: "completed",
      progress: { stage: "done" },
      result: { backupId, snapshotAt: manifest.snapshotAt, collections: restored, credentialsKeptRevoked: credentialsKept, scanId },
    });
  });
}

export async function failRestore(deps: Deps, jobId: string, error: string) {
  await endMaintenance(deps.db);
  await reportJob(deps, jobId, { status: "failed", error: error.slice(0, 1000) });
}
