/**
 * Backups and restore against pg_dump and pg_restore, and the observation cleanup of many files.
 * Issue 26's goals (point 7): a backup of a database with 1,000,000 observations at 1.5× the speed
 * of `pg_dump -Fc` or better (and its size beside it), a restore at 1.2× `pg_restore`'s or better,
 * medians of alternating rounds, and the peak memory of every process; then one run at
 * 10,000,000 (`--rounds 1`). Issue 12's cleanup of 100,000 files (time, S3 requests) follows.
 *
 *   node --import tsx bench/backup-restore.ts [--observations 1000000] [--files 100000] [--rounds 3]
 *
 * One run, one database: Debian's PostgreSQL 15 (`apt-get install -y postgresql-15`, started here
 * on a throw-away directory; or DATABASE_URL), because pg_dump only dumps a server of its own
 * major version; the embedded S3 store. In order:
 *   backup       Meridian: startBackup + runBackup in this process (snapshot, COPY, brotli, multipart
 *                upload, manifest; then the read-back to verified, timed apart);
 *   pg_dump      the peer: `pg_dump -Fc -n public` of the same database to a local file;
 *   restore      Meridian: startRestore + runRestore (load into a side schema while verifying, swap
 *                in one transaction), from the first backup;
 *   pg_restore   the peer: `pg_restore --clean --if-exists -n public` of the dump into the same database;
 *   cleanup      Meridian's observation cleanup over `--files` file records and objects, with its S3
 *                requests counted at the storage layer (list pages, DeleteObjects calls).
 * Backup and pg_dump take turns `--rounds` times, then restore and pg_restore; medians are compared.
 * Results: bench/results/backup-restore.md.
 */
import { execFile, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { backupsCollection, jobsCollection, type ObjectStorage } from "@meridian/db";
import { runBackup, runRestore, startBackup, startRestore } from "@meridian/domain/backups";
import { runObservationCleanup } from "@meridian/domain/cleanup";
import { inTransaction, recordJobStarted, type Runtime } from "@meridian/domain/platform";
import { sql } from "drizzle-orm";
import { installCleanupHooks, loadAverage, makeTempDir, median, numberOption, removeTempDirs, stopAll, writeResult } from "./lib.mjs";
import { startPostgres15 } from "./postgres-15";
import { startBenchRuntime } from "./runtime";
import { maxPeaks, parentOf, sampleMemory, type MemoryPeaks } from "./process-memory";
import { seedObjects, seedObservations } from "./seed";

const run = promisify(execFile);
const OBSERVATIONS = numberOption("observations", 1_000_000);
const FILES = numberOption("files", 100_000);
const ROUNDS = numberOption("rounds", 3);
const loadAtStart = loadAverage();
const log = (message: string) => process.stderr.write(`[backup-restore] ${message}\n`);

let runtime: Runtime | undefined;
let postgres15: Awaited<ReturnType<typeof startPostgres15>> | undefined;
installCleanupHooks();

/** The storage with its requests counted: a list page is one ListObjectsV2, a deleteMany one DeleteObjects. */
function countingStorage(storage: ObjectStorage) {
  const counter = { list: 0, deleteObjects: 0 };
  const counted: ObjectStorage = {
    ...storage,
    async *list(prefix) {
      for await (const page of storage.list(prefix)) {
        counter.list += 1;
        yield page;
      }
    },
    async deleteMany(keys) {
      counter.deleteObjects += 1;
      await storage.deleteMany(keys);
    },
  };
  return { counted, counter };
}

const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
};

const noPeaks: MemoryPeaks = { meridianRss: 0, postgresPrivate: 0, postgresShared: 0, peerRss: 0 };
let postmaster: number | undefined;
/** Peak memory of every process, per phase, over its rounds. */
const peaks: Record<"backup" | "dump" | "restore" | "pgRestore", MemoryPeaks> = { backup: noPeaks, dump: noPeaks, restore: noPeaks, pgRestore: noPeaks };

/** A phase timed with its processes' memory sampled; `peer` is the child process of a peer tool, once started. */
async function measured<T>(phase: keyof typeof peaks, work: (started: (child: ChildProcess) => void) => Promise<T>): Promise<[T, number]> {
  let child: ChildProcess | undefined;
  const sampler = sampleMemory({ postmaster, peer: () => child?.pid });
  try {
    return await timed(() => work((started) => (child = started)));
  } finally {
    peaks[phase] = maxPeaks(peaks[phase], sampler.stop());
  }
}

/** Runs a peer tool, telling `started` its process so its memory can be sampled. */
const runPeer = (command: string, args: string[], started: (child: ChildProcess) => void) =>
  new Promise<void>((resolve, reject) => {
    const child = execFile(command, args, { maxBuffer: 64 * 1024 * 1024 }, (error) => (error ? reject(error) : resolve()));
    started(child);
  });

async function main() {
  postgres15 = process.env.DATABASE_URL ? undefined : await startPostgres15();
  const databaseUrl = process.env.DATABASE_URL ?? postgres15!.url;
  const [{ stdout: serverVersion }] = await Promise.all([run("psql", [databaseUrl, "-Atc", "show server_version"])]);
  const dataDir = await makeTempDir("backup");
  runtime = await startBenchRuntime(dataDir, { DATABASE_URL: databaseUrl });
  const { deps } = runtime;
  // PostgreSQL's processes are its postmaster's children; readable here when it runs on this machine.
  const [backend] = await deps.db.execute<{ pid: number }>(sql`select pg_backend_pid() as pid`);
  postmaster = parentOf(backend!.pid);
  log(`seeding ${OBSERVATIONS} observations`);
  const [, seedMs] = await timed(() => seedObservations(deps.db, OBSERVATIONS));
  const [size] = await deps.db.execute<{ bytes: string }>(sql`select sum(pg_total_relation_size(c.oid))::text as bytes
    from pg_class c where c.relnamespace = 'public'::regnamespace and c.relkind = 'r'`);

  // The machine's speed wanders by a third from one minute to the next, so the sides take turns,
  // ROUNDS times each, and the medians are compared.
  const archiveRuns: number[] = [];
  const verifyRuns: number[] = [];
  const dumpRuns: number[] = [];
  const restoreRuns: number[] = [];
  const pgRestoreRuns: number[] = [];
  const dumpFile = path.join(await makeTempDir("dump"), "meridian.dump");
  let backup: Awaited<ReturnType<typeof backupsCollection.get>>;
  for (let round = 1; round <= ROUNDS; round++) {
    log(`round ${round}: Meridian backup`);
    const [made, backupMs] = await measured("backup", async () => {
      const started = await startBackup({ deps, actor: null, trigger: "manual" });
      await runBackup({ deps, jobId: started.jobId!, backupId: started.id, then: null });
      return (await backupsCollection.get(deps.db, started.id))!;
    });
    if (made.doc.status !== "verified") throw new Error(`the backup is ${made.doc.status}: ${made.doc.error}`);
    backup ??= made;
    const archiveMs = Date.parse(made.doc.finishedAt!) - Date.parse(made.doc.startedAt);
    archiveRuns.push(archiveMs);
    verifyRuns.push(backupMs - archiveMs);
    log(`round ${round}: pg_dump`);
    dumpRuns.push((await measured("dump", (started) => runPeer("pg_dump", ["-Fc", "-n", "public", "-f", dumpFile, databaseUrl], started)))[1]);
  }
  const dumpBytes = (await fs.stat(dumpFile)).size;
  let restored: { count: number } | undefined;
  for (let round = 1; round <= ROUNDS; round++) {
    log(`round ${round}: Meridian restore`);
    const [restoreJob, restoreMs] = await measured("restore", async () => {
      const { jobId } = await startRestore({ deps, actor: null, backupId: backup!.id });
      await runRestore({ deps, jobId, backupId: backup!.id, actorId: null });
      return (await jobsCollection.get(deps.db, jobId))!;
    });
    if (restoreJob.doc.status !== "completed") throw new Error(`the restore ${restoreJob.doc.status}: ${restoreJob.doc.error}`);
    restoreRuns.push(restoreMs);
    [restored] = await deps.db.execute<{ count: number }>(sql`select count(*)::int as count from observations`);
    log(`round ${round}: pg_restore`);
    pgRestoreRuns.push(
      (await measured("pgRestore", (started) => runPeer("pg_restore", ["--clean", "--if-exists", "-n", "public", "-d", databaseUrl, dumpFile], started)))[1],
    );
  }
  const archiveMs = median(archiveRuns);
  const verifyMs = median(verifyRuns);
  const dumpMs = median(dumpRuns);
  const restoreMs = median(restoreRuns);
  const pgRestoreMs = median(pgRestoreRuns);

  log(`cleanup of ${FILES} files`);
  await deps.db.execute(sql`truncate observations, observation_history, files`);
  await seedObservations(deps.db, 1000);
  const [, filesSeedMs] = await timed(() => seedObjects(runtime!, FILES));
  const { counted, counter } = countingStorage(deps.storage);
  const cleanupJob = await inTransaction(deps, (t) => recordJobStarted({ t, kind: "observation_cleanup", startedBy: null, now: new Date() }));
  const [summary, cleanupMs] = await timed(() =>
    runObservationCleanup({ deps: { ...deps, storage: counted }, jobId: cleanupJob.id, cutoff: new Date().toISOString(), actorId: null }),
  );

  const count = (value: number) => value.toLocaleString("en-US");
  const seconds = (ms: number) => (ms / 1000).toFixed(1);
  const each = (runs: number[]) => runs.map(seconds).join(", ");
  const megabytes = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  const backupRatio = dumpMs / archiveMs;
  const restoreRatio = pgRestoreMs / restoreMs;
  const roundRatios = (ours: number[], peer: number[]) => ours.map((ms, index) => (peer[index]! / ms).toFixed(2)).join(", ");
  const manifest = backup!.doc.manifest;
  const parts = manifest?.format === "meridian-backup/2" ? manifest.parts : [];
  const observationRanges = parts.flatMap((part) => part.sections).filter((section) => section.name === "observations").length;
  const memoryRow = (name: string, phase: MemoryPeaks, peer: boolean) =>
    `| ${name} | ${megabytes(phase.meridianRss)} | ${megabytes(phase.postgresPrivate)} | ${megabytes(phase.postgresShared)} | ` +
    `${peer ? megabytes(phase.peerRss) : ""} |`;
  const text = [
    "# Backup, restore and observation cleanup",
    "",
    `\`node --import tsx bench/backup-restore.ts --observations ${OBSERVATIONS} --files ${FILES} --rounds ${ROUNDS}\`, ` +
      `run on ${new Date().toISOString().slice(0, 10)}`,
    `(${os.cpus().length} cores, ${os.cpus()[0]?.model.trim()}, Node ${process.version}; load average at start ${loadAtStart}, at the end ${loadAverage()}).`,
    `PostgreSQL ${serverVersion.trim()} (Debian's postgresql-15, fsync off for both sides), embedded S3 (s3rver) on local disk. ` +
      `${count(OBSERVATIONS)} observations seeded in ${seconds(seedMs)} s; the public schema's tables and indexes: ${megabytes(Number(size?.bytes ?? 0))}.`,
    "",
    `Backup and dump take turns, ${ROUNDS} rounds, then restore and pg_restore; the times are the medians, each round's in the notes.`,
    "",
    "| Run | Median time | Size | Notes |",
    "|---|---:|---:|---|",
    `| Meridian backup: snapshot, parallel COPY of parts, brotli, uploads, manifest | ${seconds(archiveMs)} s | ${megabytes(backup!.doc.sizeBytes ?? 0)} | ` +
      `${parts.length} parts (observations in ${observationRanges} block ranges); then read back and verified in ${seconds(verifyMs)} s; ` +
      `rounds: ${each(archiveRuns)} s |`,
    `| peer: \`pg_dump -Fc -n public\` to a local file | ${seconds(dumpMs)} s | ${megabytes(dumpBytes)} | no verification; rounds: ${each(dumpRuns)} s |`,
    `| Meridian restore: load and verify parts in parallel into a side schema, swap in one transaction | ${seconds(restoreMs)} s | | ` +
      `${count(restored?.count ?? 0)} observations back; rounds: ${each(restoreRuns)} s |`,
    `| peer: \`pg_restore --clean --if-exists -n public\` | ${seconds(pgRestoreMs)} s | | rounds: ${each(pgRestoreRuns)} s |`,
    "",
    "Peak memory over the rounds (RSS sampled every 200 ms): Meridian is this process with its threads; PostgreSQL is the sum of its processes' " +
      "private memory, and apart from it the most shared memory (buffers) one of them mapped; the peer is pg_dump's or pg_restore's own peak.",
    "",
    "| Phase | Meridian | PostgreSQL private (sum) | PostgreSQL shared (largest) | Peer tool |",
    "|---|---:|---:|---:|---:|",
    memoryRow("Meridian backup (with its read-back)", peaks.backup, false),
    memoryRow("pg_dump -Fc", peaks.dump, true),
    memoryRow("Meridian restore", peaks.restore, false),
    memoryRow("pg_restore", peaks.pgRestore, true),
    "",
    "| Cleanup | Files | Time | List calls | DeleteObjects calls |",
    "|---|---:|---:|---:|---:|",
    `| Meridian observation cleanup | ${count(summary?.files ?? 0)} records, ${count(summary?.storageObjects ?? 0)} objects | ${seconds(cleanupMs)} s | ` +
      `${counter.list} | ${counter.deleteObjects} |`,
    "",
    `- Backup at 1.5× pg_dump -Fc's speed or better: **${backupRatio >= 1.5 ? "met" : "missed"}** (${backupRatio.toFixed(2)}× its speed, ` +
      `rounds ${roundRatios(archiveRuns, dumpRuns)}; size ${((backup!.doc.sizeBytes ?? 0) / dumpBytes).toFixed(2)}× the dump's).`,
    `- Restore at 1.2× pg_restore's speed or better: **${restoreRatio >= 1.2 ? "met" : "missed"}** (${restoreRatio.toFixed(2)}×, ` +
      `rounds ${roundRatios(restoreRuns, pgRestoreRuns)}).`,
    `- ${count(FILES)} objects seeded in ${seconds(filesSeedMs)} s.`,
    "",
  ].join("\n");
  await writeResult("backup-restore.md", text);
  process.stdout.write(text);
}

main()
  .catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(async () => {
    await stopAll();
    await runtime?.stop().catch(() => undefined);
    await postgres15?.stop();
    await removeTempDirs();
  });
