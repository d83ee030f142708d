/**
 * What a completed job in a queue (`email:<address>`, `push:<user>`) costs PostgreSQL while other
 * queues hold a backlog: graphile-worker frees the job's queue as it deletes the job, and
 * Meridian's trigger (packages/db/src/queue-release-nudge.ts) then looks for a job waiting in it.
 *
 *   node --import tsx bench/queue-release.ts [--completions 1000] [--rounds 3]
 *
 * On a throw-away PostgreSQL 15 (Debian's `postgresql-15`, as bench/backup-restore.ts) or the
 * server at DATABASE_URL, one database per side and backlog (0, 10,000 and 100,000 jobs waiting,
 * each in a queue of its own), migrated as Meridian's are (migrateDatabase):
 *   peer      graphile-worker alone: the trigger and its index dropped;
 *   meridian  with the freed-queue trigger and its index, as every Meridian database has them;
 *   unindexed the trigger without the index (as it was before the index, kept to show the change).
 * `--completions` jobs, each in a queue of its own and locked by a worker, are then completed one
 * per transaction with graphile-worker's own completion statement (delete the job, free its
 * queue), timed from the first to the last; the sides take turns for `--rounds` rounds, medians.
 * Results: bench/results/queue-release.md.
 */
import { connectDatabase, migrateDatabase } from "@meridian/db";
import postgres from "postgres";
import { startPostgres15 } from "./postgres-15";
import { installCleanupHooks, loadAverage, machineDescription, median, numberOption, removeTempDirs, writeResult } from "./lib.mjs";

const COMPLETIONS = numberOption("completions", 1000);
const ROUNDS = numberOption("rounds", 3);
const BACKLOGS = [0, 10_000, 100_000];
const SIDES = ["peer", "meridian", "unindexed"] as const;
type Side = (typeof SIDES)[number];
const WORKER = "bench-worker";
const log = (message: string) => process.stderr.write(`[queue-release] ${message}\n`);

installCleanupHooks();
const loadAtStart = loadAverage();

/** A fresh database for one side and backlog, with the completions' jobs locked and ready. */
async function prepare(serverUrl: string, side: Side, backlog: number): Promise<string> {
  const admin = postgres(serverUrl, { max: 1, onnotice: () => undefined });
  const name = `queue_release_${side}_${backlog}`;
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handle = connectDatabase(url.href, { max: 2 });
  await migrateDatabase(handle).finally(() => handle.close());
  const sql = postgres(url.href, { max: 1, onnotice: () => undefined });
  try {
    if (side === "peer") await sql`drop trigger meridian_nudge_freed_queue on graphile_worker._private_job_queues`;
    if (side !== "meridian") await sql`drop index graphile_worker.meridian_available_jobs_by_queue`;
    const addJobs = (count: number, prefix: string) => sql`
      select graphile_worker.add_jobs(array(
        select row('send_email', '{}'::json, ${prefix} || n, now(), null, null, null, null)::graphile_worker.job_spec
          from generate_series(1, ${count}::int) n))`;
    if (backlog > 0) await addJobs(backlog, "email:waiting");
    await addJobs(COMPLETIONS, "email:done");
    await sql`update graphile_worker._private_jobs j set locked_at = now(), locked_by = ${WORKER}
                from graphile_worker._private_job_queues q where q.id = j.job_queue_id and q.queue_name like 'email:done%'`;
    await sql`update graphile_worker._private_job_queues set locked_at = now(), locked_by = ${WORKER} where queue_name like 'email:done%'`;
    await sql`vacuum analyze graphile_worker._private_jobs`;
    await sql`vacuum analyze graphile_worker._private_job_queues`;
  } finally {
    await sql.end();
  }
  return url.href;
}

/** graphile-worker's completion of one queued job (sql/completeJobs.js), one per transaction, in turn. */
async function completeAll(url: string): Promise<number> {
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    const jobs = await sql<{ id: string }[]>`
      select j.id from graphile_worker._private_jobs j where j.locked_by = ${WORKER} order by j.id`;
    const started = performance.now();
    for (const { id } of jobs)
      await sql`
        with j as (delete from graphile_worker._private_jobs as jobs using unnest(${[id]}::bigint[]) n(n) where id = n returning *)
        update graphile_worker._private_job_queues as job_queues set locked_by = null, locked_at = null
          from j where job_queues.id = j.job_queue_id and job_queues.locked_by = ${WORKER}::text`;
    const elapsed = performance.now() - started;
    const [left] = await sql<{ count: number }[]>`select count(*)::int as count from graphile_worker._private_job_queues where locked_by is not null`;
    if (jobs.length !== COMPLETIONS || left!.count !== 0) throw new Error(`${url}: ${jobs.length} jobs completed, ${left!.count} queues still locked`);
    return elapsed;
  } finally {
    await sql.end();
  }
}

async function main() {
  const server = process.env.DATABASE_URL ? { url: process.env.DATABASE_URL, stop: async () => undefined } : await startPostgres15();
  try {
    const times = new Map<string, number[]>();
    for (let round = 0; round < ROUNDS; round += 1)
      for (const backlog of BACKLOGS) {
        const order = round % 2 === 0 ? SIDES : [...SIDES].reverse();
        for (const side of order) {
          const url = await prepare(server.url, side, backlog);
          const elapsed = await completeAll(url);
          const key = `${side} ${backlog}`;
          times.set(key, [...(times.get(key) ?? []), elapsed]);
          log(`round ${round + 1}, backlog ${backlog}, ${side}: ${COMPLETIONS} completions in ${elapsed.toFixed(0)} ms`);
        }
      }

    const machine = machineDescription();
    const serverName = process.env.DATABASE_URL ? "the server at DATABASE_URL" : "PostgreSQL 15 (Debian)";
    const perCompletion = (side: Side, backlog: number) => median(times.get(`${side} ${backlog}`)!) / COMPLETIONS;
    const cell = (side: Side, backlog: number) =>
      `${perCompletion(side, backlog).toFixed(3)} (${times
        .get(`${side} ${backlog}`)!
        .map((ms) => (ms / COMPLETIONS).toFixed(3))
        .join(", ")})`;
    const rows = BACKLOGS.map(
      (backlog) =>
        `| ${backlog.toLocaleString("en")} | ${cell("peer", backlog)} | ${cell("meridian", backlog)} | ${cell("unindexed", backlog)} | ` +
        `${(perCompletion("meridian", backlog) / perCompletion("peer", backlog)).toFixed(2)}× |`,
    );
    const worst = Math.max(...BACKLOGS.map((backlog) => perCompletion("meridian", backlog) / perCompletion("peer", backlog)));
    const text = [
      "# A queued job's completion beside a backlog",
      "",
      `Measured ${new Date().toISOString().slice(0, 10)} with \`node --import tsx bench/queue-release.ts\`: ${COMPLETIONS.toLocaleString("en")} ` +
        `completions one per transaction, ${ROUNDS} rounds with the sides alternating, medians (each round's figure in brackets). ` +
        `${machine.cores} cores (${machine.cpuModel}), Node ${machine.node}, ${serverName}. ` +
        `Load average at the start ${loadAtStart}, at the end ${loadAverage()}.`,
      "",
      "| Jobs waiting in other queues | graphile-worker alone, ms per completion | Meridian (trigger and index) " +
        "| the trigger without its index | Meridian × peer |",
      "|---:|---:|---:|---:|---:|",
      ...rows,
      "",
      `Meridian's completion costs at most ${worst.toFixed(2)}× graphile-worker's own, whatever the backlog; ` +
        "without the index its cost grows with the backlog.",
      "",
    ].join("\n");
    process.stdout.write(`\n${text}`);
    process.stdout.write(`written to ${await writeResult("queue-release.md", text)}\n`);
  } finally {
    await server.stop();
    await removeTempDirs();
  }
}

await main();
