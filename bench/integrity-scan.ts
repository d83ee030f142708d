/**
 * How fast is an integrity scan, and how much memory does it take? Issue 11's goals: a full scan
 * of 1,000,000 observation documents at no less than half the rate of
 * `COPY (SELECT doc FROM observations) TO STDOUT` over the same table, with the worker's peak RSS;
 * and the storage check of 100,000 objects against a bare ListObjectsV2 walk of the same bucket.
 *
 *   node --import tsx bench/integrity-scan.ts [--observations 1000000] [--objects 100000] [--rounds 3]
 *
 * In one run, over startRuntime on a throw-away DATA_DIR (embedded PostgreSQL, embedded S3):
 *   copy      the peer: `COPY (SELECT doc FROM observations) TO STDOUT` streamed through the same
 *             driver into a byte counter;
 *   scan      Meridian's real path: a full scan of the observations collection (structure against
 *             the zod schema, status and history, targets, data quality) started with
 *             startIntegrityScan and run by one worker process (`apps/worker/src/main.ts`, as
 *             `pnpm start:worker`); timed from start to `completed`; the worker's peak RSS is its
 *             VmHWM from /proc, beside its RSS when idle;
 *   list      the peer: ListObjectsV2 pages of 1,000 over the bucket, nothing else;
 *   storage   the storage check (storageFindings): the same listing merged with the file records.
 * COPY and the scan take turns `--rounds` times (this machine's speed wanders by a third from
 * minute to minute) and their medians are compared. Every observation is valid except one in a
 * hundred, stuck in assigned, so the scan also writes issues. Results: bench/results/integrity-scan.md.
 */
import os from "node:os";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { integrityScansCollection, type ObjectStorage } from "@meridian/db";
import { startIntegrityScan, storageFindings } from "@meridian/domain/integrity";
import { type Runtime } from "@meridian/domain/platform";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { startBenchRuntime } from "./runtime";
import { seedObjects, seedObservations } from "./seed";
import {
  installCleanupHooks,
  loadAverage,
  makeTempDir,
  median,
  mib,
  numberOption,
  readPeakRss,
  readRss,
  removeTempDirs,
  sleep,
  spawnWorker,
  stopAll,
  stopChild,
  writeResult,
} from "./lib.mjs";

const OBSERVATIONS = numberOption("observations", 1_000_000);
const OBJECTS = numberOption("objects", 100_000);
const ROUNDS = numberOption("rounds", 3);
const loadAtStart = loadAverage();
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
const log = (message: string) => process.stderr.write(`[integrity-scan] ${message}\n`);

let runtime: Runtime | undefined;
installCleanupHooks();
async function cleanup() {
  await stopAll();
  await runtime?.stop().catch(() => undefined);
  await removeTempDirs();
}

/** The storage with its list calls counted. */
function countingLists(storage: ObjectStorage) {
  const counter = { calls: 0 };
  const counted: ObjectStorage = {
    ...storage,
    async *list(prefix) {
      for await (const page of storage.list(prefix)) {
        counter.calls += 1;
        yield page;
      }
    },
  };
  return { counted, counter };
}

async function main() {
  const dataDir = await makeTempDir("integrity");
  runtime = await startBenchRuntime(dataDir);
  const { db } = runtime.deps;
  log(`seeding ${OBSERVATIONS} observations`);
  const seedStarted = performance.now();
  await seedObservations(db, OBSERVATIONS);
  const seedMs = performance.now() - seedStarted;
  const [size] = await db.execute<{ bytes: string }>(sql`select pg_total_relation_size('observations')::text as bytes`);

  // Peer: COPY of the same documents through the same driver, into a byte counter.
  const client = postgres(runtime.databaseUrl, { max: 1 });
  let copiedBytes = 0;
  const copyOnce = async () => {
    copiedBytes = 0;
    const started = performance.now();
    const copy = await client`copy (select doc from observations) to stdout`.readable();
    await pipeline(
      copy,
      new Writable({
        write(chunk: Buffer, _encoding, callback) {
          copiedBytes += chunk.length;
          callback();
        },
      }),
    );
    return performance.now() - started;
  };

  // Meridian: a full scan of the observations, run by one worker process.
  const worker = await spawnWorker({
    DATA_DIR: await makeTempDir("worker"),
    DATABASE_URL: runtime.databaseUrl,
    S3_ENDPOINT: runtime.deps.storage.endpoint,
    S3_BUCKET: runtime.deps.storage.bucket,
    S3_ACCESS_KEY_ID: runtime.deps.storage.credentials.accessKeyId,
    S3_SECRET_ACCESS_KEY: runtime.deps.storage.credentials.secretAccessKey,
    S3_FORCE_PATH_STYLE: "true",
    SECRETS_KEY: "bench secrets key",
  });
  const idleRss = readRss(worker.pid!) ?? 0;
  const scanOnce = async () => {
    const started = performance.now();
    const scan = await startIntegrityScan({ deps: runtime!.deps, actor: null, kind: "full", input: { collections: ["observations"] } });
    for (;;) {
      const current = (await integrityScansCollection.get(db, scan.id))!;
      if (current.doc.status === "failed") throw new Error(`the scan failed: ${current.doc.error}`);
      if (current.doc.status === "completed") return { ms: performance.now() - started, doc: current.doc };
      await sleep(50);
    }
  };

  const copyRuns: number[] = [];
  const scanRuns: number[] = [];
  let finished: Awaited<ReturnType<typeof scanOnce>>["doc"] | undefined;
  for (let round = 1; round <= ROUNDS; round += 1) {
    log(`round ${round}: COPY`);
    copyRuns.push(await copyOnce());
    log(`round ${round}: full scan`);
    const scanned = await scanOnce();
    scanRuns.push(scanned.ms);
    finished = scanned.doc;
  }
  const copyMs = median(copyRuns);
  const scanMs = median(scanRuns);
  const peakRss = readPeakRss(worker.pid!) ?? 0;
  await stopChild(worker);
  await client.end();

  // Storage: a bare ListObjectsV2 walk, then the storage check, over the same bucket.
  log(`seeding ${OBJECTS} objects`);
  const objectsStarted = performance.now();
  await seedObjects(runtime, OBJECTS);
  const objectsSeedMs = performance.now() - objectsStarted;
  log("listing and storage check");
  const peer = countingLists(runtime.deps.storage);
  let listed = 0;
  const listStarted = performance.now();
  for await (const page of peer.counted.list("observations/")) listed += page.length;
  const listMs = performance.now() - listStarted;
  const merged = countingLists(runtime.deps.storage);
  let storageIssues = 0;
  const storageStarted = performance.now();
  for await (const issue of storageFindings({ db, storage: merged.counted, now: new Date() })) if (issue.code !== "MISSING_PREVIEW") storageIssues += 1;
  const storageMs = performance.now() - storageStarted;

  const count = (value: number) => value.toLocaleString("en-US");
  const seconds = (ms: number) => (ms / 1000).toFixed(1);
  const rate = (items: number, ms: number) => count(Math.round(items / (ms / 1000)));
  const ratio = copyMs / scanMs;
  const text = [
    "# Integrity scan",
    "",
    `\`node --import tsx bench/integrity-scan.ts --observations ${OBSERVATIONS} --objects ${OBJECTS} --rounds ${ROUNDS}\`, ` +
      `run on ${new Date().toISOString().slice(0, 10)}`,
    `(${os.cpus().length} cores, ${os.cpus()[0]?.model.trim()}, Node ${process.version}; load average at start ${loadAtStart}, at the end ${loadAverage()}).`,
    `Embedded PostgreSQL and S3 (s3rver); ${count(OBSERVATIONS)} observations seeded in ${seconds(seedMs)} s ` +
      `(table and indexes ${(Number(size?.bytes ?? 0) / 1024 ** 2).toFixed(0)} MiB), ` +
      `${count(OBJECTS)} objects with their records in ${seconds(objectsSeedMs)} s.`,
    "",
    `COPY and the scan took turns, ${ROUNDS} rounds; the times are the medians.`,
    "",
    "| Run | Documents | Time | Documents/s | Notes |",
    "|---|---:|---:|---:|---|",
    `| peer: \`COPY (SELECT doc FROM observations) TO STDOUT\` | ${count(OBSERVATIONS)} | ${seconds(copyMs)} s | ${rate(OBSERVATIONS, copyMs)} | ` +
      `${(copiedBytes / 1024 ** 2).toFixed(0)} MiB streamed; rounds: ${copyRuns.map(seconds).join(", ")} s |`,
    `| Meridian: full scan of observations, one worker process | ${count(finished!.progress.scanned)} | ${seconds(scanMs)} s | ` +
      `${rate(finished!.progress.scanned, scanMs)} | ${count(finished!.summary.warning)} warnings each; worker RSS ${mib(idleRss)} idle, ` +
      `peak ${mib(peakRss)}; rounds: ${scanRuns.map(seconds).join(", ")} s |`,
    "",
    "| Run | Objects | List calls | Time | Objects/s | Notes |",
    "|---|---:|---:|---:|---:|---|",
    `| peer: bare ListObjectsV2 walk | ${count(listed)} | ${peer.counter.calls} | ${seconds(listMs)} s | ${rate(listed, listMs)} | |`,
    `| Meridian: storage check (listing merged with the file records) | ${count(listed)} | ${merged.counter.calls} | ${seconds(storageMs)} s | ` +
      `${rate(listed, storageMs)} | ${storageIssues} issues besides missing previews (0 expected) |`,
    "",
    `- Goal: the scan at 0.5× COPY's rate or better: **${ratio >= 0.5 ? "met" : "missed"}** (${ratio.toFixed(2)}×).`,
    `- The storage check made ${merged.counter.calls} list calls for ${count(listed)} objects (the walk: ${peer.counter.calls}), no HEAD, ` +
      `and took ${(storageMs / listMs).toFixed(2)}× the bare walk's time.`,
    "",
  ].join("\n");
  await writeResult("integrity-scan.md", text);
  process.stdout.write(text);
  if (storageIssues > 0) throw new Error(`the storage check found ${storageIssues} issues in a consistent bucket`);
}

main()
  .catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(cleanup);
