/**
 * Issue 24: the observation list's search over 100,000 observations (goal: p99 under 50 ms) and
 * the CSV export of all of them beside a bare `COPY (select ...) TO STDOUT` of the same rows.
 *
 *   node --import tsx bench/observation-search.ts [--rows 100000] [--rounds 200]
 *
 * In this process over an embedded PostgreSQL 18 (or DATABASE_URL), no HTTP: listObservations and
 * exportObservations are called as the API calls them. 100,000 observations (bench/seed.ts: names
 * `Survey field <n>`, one target `NGC <n mod 7840>`, priorities 1..10), a minute apart; half belong to
 * the user who searches, who can read nothing else (the readability condition runs as for anyone).
 * Results: bench/results/observation-search.md.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createLogger, loadEnv } from "@meridian/config";
import { usersCollection } from "@meridian/db";
import { exportObservations, listObservations, type ObservationFilter } from "@meridian/domain/observations";
import { actorFromUser, startRuntime } from "@meridian/domain/platform";
import { sql } from "drizzle-orm";
import { loadAverage, median, numberOption, writeResult } from "./lib.mjs";
import { seedObservations } from "./seed";

const ROWS = numberOption("rows", 100_000);
const ROUNDS = numberOption("rounds", 200);
const EXPORTS = numberOption("exports", 5);

const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-bench-search-"));
const env = loadEnv({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "warn", EMBEDDED_POSTGRES_PORT: String(20000 + Math.floor(Math.random() * 20000)) });
const runtime = await startRuntime({ env, logger: createLogger({ level: "warn" }), kind: "all" });
const { deps } = runtime;

const percentile = (sorted: number[], share: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!;

try {
  const user = await usersCollection.insert(deps.db, {
    email: "searcher@example.com",
    name: "Searcher",
    passwordHash: "x",
    roles: [],
    notificationPreferences: { email: true, push: false, systemEvents: true, observationEvents: true },
    avatar: null,
  });
  const seeding = performance.now();
  await seedObservations(deps.db, ROWS);
  await deps.db.execute(sql`
    update observations set created_at = now() - substr(id, 10)::int * interval '1 minute',
      owner_id = case when substr(id, 10)::int % 2 = 0 then ${user.id} else owner_id end,
      doc = case when substr(id, 10)::int % 2 = 0 then jsonb_set(doc, '{ownerId}', to_jsonb(${user.id}::text)) else doc end`);
  await deps.db.execute(sql`vacuum (analyze) observations`);
  const seedSeconds = (performance.now() - seeding) / 1000;
  const [server] = await deps.sql<Array<{ version: string }>>`select current_setting('server_version') as version`;
  const version = server!.version;
  const actor = actorFromUser({ user: (await usersCollection.get(deps.db, user.id))! });

  // Queries people type: a whole target name (a few matches), part of a name, a common prefix (thousands), none.
  let seed = 24;
  const random = (below: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % below);
  const cases: Array<{ label: string; filter: () => ObservationFilter }> = [
    { label: "no search (newest first)", filter: () => ({}) },
    { label: "q = a target's designation (`NGC 1234`; `NGC 12` also finds NGC 120 to 1299)", filter: () => ({ q: `NGC ${random(7840)}` }) },
    { label: "q = part of a name (`field 4242`: 1 to 6 matches)", filter: () => ({ q: `field ${1000 + random(9000)}` }) },
    { label: "q = a common prefix (`ngc 7`: about 3,200 matches), newest first", filter: () => ({ q: "ngc 7" }) },
    { label: "q = a common prefix, highest priority first", filter: () => ({ q: "ngc 7", sort: "-priority" }) },
    { label: "q = nothing matches (`zzz`)", filter: () => ({ q: "zzz" }) },
    { label: "q = two letters (`ld`: every row matches)", filter: () => ({ q: "ld" }) },
    { label: "q = two letters no row holds (`qx`)", filter: () => ({ q: "qx" }) },
    { label: "q = one character (`7`, in most rows)", filter: () => ({ q: "7" }) },
    { label: "status filter and sort, no search", filter: () => ({ status: ["assigned"], sort: "-statusChangedAt" }) },
  ];
  const lines: string[] = [];
  for (const { label, filter } of cases) {
    for (let warm = 0; warm < 5; warm += 1) await listObservations({ deps, actor, filter: filter(), limit: 50 });
    const samples: number[] = [];
    let matches = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      const started = performance.now();
      const page = await listObservations({ deps, actor, filter: filter(), limit: 50 });
      samples.push(performance.now() - started);
      matches += page.items.length;
    }
    samples.sort((a, b) => a - b);
    const times = [median(samples), percentile(samples, 0.99), samples.at(-1)!].map((ms) => ms.toFixed(2));
    lines.push(`| ${label} | ${(matches / ROUNDS).toFixed(1)} | ${times.join(" | ")} |`);
    console.log(lines.at(-1));
  }

  // The export: every row (as a server admin, so the same rows as the bare COPY), CSV, read to the end.
  const admin = { ...actor, isServerAdmin: true };
  const exportOnce = async () => {
    let bytes = 0;
    for await (const chunk of exportObservations({ deps, actor: admin, filter: {}, format: "csv" })) bytes += Buffer.byteLength(chunk);
    return bytes;
  };
  const copyOnce = async () => {
    let bytes = 0;
    const stream = await deps.sql`copy (
      select o.id, o.doc->>'name', o.doc->>'type', o.status, o.doc->>'statusReason', o.priority,
             (select string_agg(t->>'name', '; ') from jsonb_array_elements(o.doc->'targets') t),
             o.project_id, o.observatory_id, o.owner_id, o.doc->>'fixedTimeStart', o.doc->>'fixedTimeEnd',
             o.doc->>'statusChangedAt', o.created_at, o.updated_at
        from observations o order by o.created_at desc, o.id desc) to stdout (format csv, header)`.readable();
    await pipeline(
      stream,
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          bytes += chunk.length;
          done();
        },
      }),
    );
    return bytes;
  };
  const timings = { ours: [] as number[], copy: [] as number[] };
  const sizes = { ours: 0, copy: 0 };
  await exportOnce();
  await copyOnce();
  // Turn by turn, so both see the same machine.
  for (let round = 0; round < EXPORTS; round += 1) {
    let started = performance.now();
    sizes.ours = await exportOnce();
    timings.ours.push(performance.now() - started);
    started = performance.now();
    sizes.copy = await copyOnce();
    timings.copy.push(performance.now() - started);
  }
  const exportLine = (label: string, bytes: number, samples: number[]) =>
    `| ${label} | ${(bytes / 1024 / 1024).toFixed(1)} | ${median(samples).toFixed(0)} | ${Math.round(ROWS / (median(samples) / 1000)).toLocaleString("en")} |`;
  const exportLines = [
    exportLine("exportObservations, CSV (cursor of 1,000 rows, presented, formulas defused)", sizes.ours, timings.ours),
    exportLine("peer: bare COPY (select the same columns ...) TO STDOUT (format csv)", sizes.copy, timings.copy),
  ];
  console.log(exportLines.join("\n"));
  const text = [
    `Observation search and export (${ROWS.toLocaleString("en")} observations, PostgreSQL ${version}, ${os.cpus().length} cores, ` +
      `load average ${loadAverage()}, ${new Date().toISOString().slice(0, 10)}; seeding took ${seedSeconds.toFixed(1)} s)`,
    "",
    `Search: listObservations, first page of 50, as a user who may read half the rows; ${ROUNDS} calls each after 5 warm-up calls.`,
    "",
    "| Query | rows returned | p50 ms | p99 ms | max ms |",
    "|---|---:|---:|---:|---:|",
    ...lines,
    "",
    `Export: all ${ROWS.toLocaleString("en")} rows to nothing, median of ${EXPORTS}, the two taking turns.`,
    "",
    "| What | MiB | median ms | rows/s |",
    "|---|---:|---:|---:|",
    ...exportLines,
  ].join("\n");
  await writeResult("observation-search.md", `${text}\n`);
} finally {
  await runtime.stop();
  await fs.rm(dataDir, { recursive: true, force: true });
}
