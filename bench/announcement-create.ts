/**
 * How long does creating a system announcement for every user take, and how long does writing
 * its recipient rows take? Issue 4's goal: the recipient rows of 100,000 users written in at
 * most 1 s.
 *
 *   node --import tsx bench/announcement-create.ts [--users 100000] [--rounds 5] [--warmup-rounds 1]
 *
 * In-process, over startRuntime on a throw-away DATA_DIR (embedded PostgreSQL on a free port):
 *   1. seeds `--users` users with one set-based INSERT ... SELECT generate_series (documents
 *      valid under userDocSchema, email_lower filled), plus one server admin, then ANALYZE;
 *   2. per round, one after the other (interleaved, so a change in machine load hits every
 *      row alike): createSystemAnnouncement with targets {users: {all: true}} and delivery
 *      `message`; the same with delivery `email` (per-recipient email state; the email jobs
 *      are only queued, no worker runs); one with a single recipient (the fixed cost of a
 *      creation); previewSystemRecipients (resolution and count, nothing written); and the
 *      peer: a bare `INSERT INTO t SELECT ... FROM generate_series` of as many rows of the same
 *      width into a plain table without indexes;
 *   3. one more, unrecorded creation whose recipient statement runs under EXPLAIN (ANALYZE,
 *      BUFFERS), for the breakdown: resolving the recipients versus writing rows and indexes.
 *
 * The recipient statement is timed where it runs: the domain function gets a Deps whose
 * transaction handle times each `execute` and keeps the duration of the one that inserts into
 * announcement_recipients (round trip from Node: the statement, not the transaction around it).
 * Recipient rows of earlier rounds are kept (the table grows by two announcements' worth each
 * round, like a server that has sent announcements before); between rounds, outside the timed
 * part, `VACUUM (ANALYZE)` and `CHECKPOINT` run so that autovacuum and checkpoints do not land
 * in some rounds and not others. Results: bench/results/announcement-create.md.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createLogger, loadEnv } from "@meridian/config";
import { usersCollection, userDocSchema } from "@meridian/db";
import { createSystemAnnouncement, previewSystemRecipients, type SystemAnnouncementCreate } from "@meridian/domain/announcements";
import { actorFromUser, startRuntime, type UserActor, type Deps, type Runtime } from "@meridian/domain/platform";
import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { freePort } from "../scripts/free-port";

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} needs a whole number`);
  return value;
}
const USERS = option("users", 100_000);
const ROUNDS = Math.max(1, option("rounds", 5));
const WARMUP = option("warmup-rounds", 1);
const GOAL_MS = 1000;
// The embedded S3 client would otherwise warn about this Node version on every run.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

const loadAverage = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(" / ");
const loadAtStart = loadAverage();

// ---------------------------------------------------------------------------------------------
// Cleanup: the embedded PostgreSQL is a daemon (pg_ctl starts it in its own session), so it
// must be stopped on every way out: normal end, error, Ctrl-C, SIGTERM.

const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), "meridian-bench-announcements-"));
let runtime: Runtime | undefined;
let stopping: Promise<void> | undefined;

function stopEverything(): Promise<void> {
  stopping ??= (async () => {
    if (runtime) await runtime.stop().catch((error: unknown) => process.stderr.write(`[bench] stopping the runtime: ${String(error)}\n`));
    await fsp.rm(dataDir, { recursive: true, force: true }).catch(() => undefined);
  })();
  return stopping;
}

/** Synchronous last resort (process exit): a fast shutdown of a postmaster that is still running. */
function stopPostmasterNow() {
  try {
    const pid = Number(fs.readFileSync(path.join(dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")[0]);
    if (Number.isInteger(pid) && pid > 0) process.kill(pid, "SIGINT");
  } catch {
    // Not running (or never started).
  }
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    process.stderr.write(`\n[bench] ${signal}: stopping the embedded PostgreSQL\n`);
    void stopEverything().finally(() => process.exit(130));
  });
}
process.on("exit", stopPostmasterNow);

// ---------------------------------------------------------------------------------------------
// Timing the recipient statement inside the real creation

type Db = Deps["db"];
type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

const dialect = new PgDialect();
const isRecipientInsert = (query: SQL) => /insert\s+into\s+announcement_recipients/i.test(dialect.sqlToQuery(query).sql);

interface StatementProbe {
  /** Round-trip ms of the last recipient INSERT ... SELECT. */
  lastMs?: number;
  /** When set, the next recipient statement runs under EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON). */
  explain?: { plan?: ExplainOutput };
}
const probe: StatementProbe = {};

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Subplan Name"?: string;
  "Parent Relationship"?: string;
  "Actual Total Time": number;
  "Actual Rows": number;
  "Actual Loops": number;
  "Shared Hit Blocks"?: number;
  "Shared Read Blocks"?: number;
  "Shared Dirtied Blocks"?: number;
  "Shared Written Blocks"?: number;
  "WAL Bytes"?: number;
  "Sort Method"?: string;
  "Sort Space Used"?: number;
  "Sort Space Type"?: string;
  Plans?: PlanNode[];
}
interface ExplainOutput {
  Plan: PlanNode;
  "Planning Time": number;
  "Execution Time": number;
  Triggers?: Array<{ "Trigger Name": string; Time: number; Calls: number }>;
}

function instrumentTx(tx: Tx): Tx {
  return new Proxy(tx, {
    get(target, property, receiver) {
      if (property !== "execute") return Reflect.get(target, property, receiver);
      return async (wrapped: SQLWrapper | string) => {
        if (typeof wrapped === "string" || !isRecipientInsert(wrapped.getSQL())) return target.execute(wrapped);
        const query = wrapped.getSQL();
        if (probe.explain) {
          // EXPLAIN ANALYZE really inserts the rows (in this transaction, which commits as usual);
          // the creation then needs the counts the statement would have returned.
          const [row] = await target.execute<{ "QUERY PLAN": ExplainOutput[] }>(sql`explain (analyze, buffers, wal, format json) ${query}`);
          probe.explain.plan = row!["QUERY PLAN"][0]!;
          const announcementId = dialect.sqlToQuery(query).params.find((param) => typeof param === "string" && param.startsWith("ann_"));
          return target.execute(
            sql`select count(*)::int as total, count(acknowledged_at)::int as acknowledged from announcement_recipients
              where announcement_id = ${announcementId}`,
          );
        }
        const started = performance.now();
        const result = await target.execute(query);
        probe.lastMs = performance.now() - started;
        return result;
      };
    },
  });
}

function instrumentDb(db: Db): Db {
  return new Proxy(db, {
    get(target, property, receiver) {
      if (property !== "transaction") return Reflect.get(target, property, receiver);
      return (work: (tx: Tx) => Promise<unknown>, config?: Parameters<Db["transaction"]>[1]) => target.transaction((tx) => work(instrumentTx(tx)), config);
    },
  });
}

// ---------------------------------------------------------------------------------------------

interface Series {
  label: string;
  samples: number[];
  rows?: number;
}
const stats = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { median, min: sorted[0]!, max: sorted.at(-1)! };
};
const ms = (value: number) => value.toFixed(value < 10 ? 1 : 0);
const fmt = (value: number) => Math.round(value).toLocaleString("en-US");

async function main() {
  const env = loadEnv({ DATA_DIR: dataDir, LOG_LEVEL: "warn", NODE_ENV: "production", EMBEDDED_POSTGRES_PORT: String(await freePort()) });
  runtime = await startRuntime({ env, logger: createLogger({ level: "warn" }), kind: "all" });
  const { deps } = runtime;
  const db = deps.db;

  // --- Seed: one statement for all users.
  const seedStarted = performance.now();
  await db.execute(sql`
    insert into users (id, doc, email_lower, created_at, updated_at)
    select 'usr_' || substr(md5('bench-user-' || i), 1, 24),
           jsonb_build_object(
             'email', 'bench-user-' || i || '@example.com',
             'name', 'Bench User ' || i,
             'passwordHash', '$argon2id$v=19$m=19456,t=2,p=1$' || substr(md5('salt' || i), 1, 22) || '$' || md5('hash' || i) || substr(md5('more' || i), 1, 11),
             'roles', '[]'::jsonb,
             'notificationPreferences', jsonb_build_object('email', true, 'push', false, 'systemEvents', true, 'observationEvents', true),
             'avatar', null),
           'bench-user-' || i || '@example.com',
           now(), now()
      from generate_series(1, ${USERS}::int) as i`);
  const seedMs = performance.now() - seedStarted;
  const admin = await usersCollection.insert(db, {
    email: "bench-admin@example.com",
    name: "Bench Admin",
    passwordHash: "x",
    roles: ["serverAdmin"],
    notificationPreferences: { email: true, push: false, systemEvents: true, observationEvents: true },
    avatar: null,
  });
  await deps.sql`analyze users`;
  // The seeded documents are what the application would have written.
  const sample = await db.execute<{ doc: unknown }>(sql`select doc from users tablesample system (1) limit 50`);
  for (const row of sample) userDocSchema.parse(row.doc);
  const [{ count: userCount } = { count: 0 }] = await db.execute<{ count: number }>(sql`select count(*)::int as count from users`);
  process.stdout.write(`seeded ${fmt(USERS)} users in ${ms(seedMs)} ms (${fmt(userCount)} users in all, admin included)\n`);
  const oneUserId = (await db.execute<{ id: string }>(sql`select id from users where id <> ${admin.id} limit 1`))[0]!.id;

  const actor: UserActor = actorFromUser({ user: admin });
  const instrumented: Deps = { ...deps, db: instrumentDb(db) };
  const input = (
    deliveryType: SystemAnnouncementCreate["deliveryType"],
    targets: SystemAnnouncementCreate["targets"],
    round: string,
  ): SystemAnnouncementCreate => ({
    title: `Planned downtime ${round}`,
    message:
      "The archive is offline on Saturday from 08:00 to 10:00 UTC for a database upgrade. Observations scheduled in that window are kept and run afterwards.",
    severity: "warning",
    deliveryType,
    targets,
  });
  const allUsers = { users: { all: true, ids: [] } };

  await deps.sql`
    create table bench_peer_recipients (
      id text not null, doc text not null, created_at timestamptz not null, updated_at timestamptz not null,
      announcement_id text not null, user_id text not null, acknowledged_at timestamptz, seen_at timestamptz,
      email_state text, emailed_at timestamptz, email_claimed_at timestamptz)`;
  let peerDoc = "";
  let peerRound = 0;
  const peerInsert = async () => {
    peerRound += 1;
    // Ids and documents as long as ours: an announcement-like id, a user-like id, a text document.
    const announcementId = `ann_peer${String(peerRound).padStart(6, "0")}${"x".repeat(14)}`;
    const [row] = await db.execute<{ count: number }>(sql`
      with inserted as (
        insert into bench_peer_recipients (id, doc, announcement_id, user_id, acknowledged_at, email_state, created_at, updated_at)
        select ${announcementId} || ':usr_' || lpad(i::text, 24, '0'), ${peerDoc}, ${announcementId}, 'usr_' || lpad(i::text, 24, '0'),
               null, null, now(), now()
          from generate_series(1, ${userCount}::int) as i
        returning 1)
      select count(*)::int as count from inserted`);
    return row!.count;
  };

  const series = {
    message: { label: "createSystemAnnouncement, all users, delivery `message`: whole call", samples: [] } as Series,
    messageInsert: { label: "… of which the recipient INSERT ... SELECT", samples: [] } as Series,
    email: { label: "createSystemAnnouncement, all users, delivery `email`: whole call", samples: [] } as Series,
    emailInsert: { label: "… of which the recipient INSERT ... SELECT (with email state)", samples: [] } as Series,
    single: { label: "createSystemAnnouncement, 1 recipient (fixed cost of a creation)", samples: [] } as Series,
    preview: { label: "previewSystemRecipients, all users (resolve and count, no writes)", samples: [] } as Series,
    peer: { label: "peer: bare `INSERT INTO t SELECT ... generate_series`, plain table, no indexes, same row width", samples: [] } as Series,
  };

  const timed = async <T>(work: () => Promise<T>) => {
    const started = performance.now();
    const result = await work();
    return { result, ms: performance.now() - started };
  };
  const settle = async () => {
    await deps.sql`vacuum (analyze) announcement_recipients`;
    await deps.sql`vacuum (analyze) bench_peer_recipients`;
    await deps.sql`checkpoint`;
  };

  let widths: { ours: number; peer: number } | undefined;
  for (let round = 0; round < WARMUP + ROUNDS; round += 1) {
    const recorded = round >= WARMUP;
    const name = recorded ? `round ${round - WARMUP + 1}` : `warm-up ${round + 1}`;
    await settle();

    probe.lastMs = undefined;
    const message = await timed(() => createSystemAnnouncement({ deps: instrumented, actor, input: input("message", allUsers, name) }));
    const messageInsertMs = probe.lastMs!;
    if (message.result.recipientCount !== userCount || message.result.acknowledgedCount !== 1 || message.result.status !== "active") {
      throw new Error(`unexpected announcement: ${JSON.stringify(message.result)}`);
    }
    if (!peerDoc) {
      // Match the peer's rows to ours: same total width, the document as plain text.
      const [width] = await db.execute<{ row: number; doc: number }>(sql`
        select avg(pg_column_size(r.*))::int as row, avg(pg_column_size(r.doc))::int as doc
          from announcement_recipients r where announcement_id = ${message.result.id}`);
      peerDoc = "d".repeat(Math.max(1, width!.doc - 1));
      widths = { ours: width!.row, peer: 0 };
    }

    probe.lastMs = undefined;
    const email = await timed(() => createSystemAnnouncement({ deps: instrumented, actor, input: input("email", allUsers, name) }));
    const emailInsertMs = probe.lastMs!;
    if (email.result.recipientCount !== userCount || email.result.acknowledgedCount !== userCount || email.result.status !== "acknowledged") {
      throw new Error(`unexpected email announcement: ${JSON.stringify(email.result)}`);
    }

    const single = await timed(() =>
      createSystemAnnouncement({ deps: instrumented, actor, input: input("message", { users: { all: false, ids: [oneUserId] } }, name) }),
    );
    if (single.result.recipientCount !== 1) throw new Error(`unexpected single-recipient announcement: ${JSON.stringify(single.result)}`);

    const preview = await timed(() => previewSystemRecipients({ deps, actor, targets: allUsers }));
    if (preview.result.recipientCount !== userCount) throw new Error(`preview counted ${preview.result.recipientCount}`);

    await deps.sql`checkpoint`;
    const peer = await timed(peerInsert);
    if (peer.result !== userCount) throw new Error(`peer inserted ${peer.result}`);
    if (widths && !widths.peer) {
      const [width] = await db.execute<{ row: number }>(sql`select avg(pg_column_size(p.*))::int as row from bench_peer_recipients p`);
      widths.peer = width!.row;
    }

    process.stdout.write(
      `${name.padEnd(10)} message ${ms(message.ms).padStart(5)} ms (insert ${ms(messageInsertMs).padStart(5)}) ` +
        ` email ${ms(email.ms).padStart(5)} ms (insert ${ms(emailInsertMs).padStart(5)}) ` +
        ` 1 recipient ${ms(single.ms).padStart(4)} ms  preview ${ms(preview.ms).padStart(4)} ` +
        `ms  peer ${ms(peer.ms).padStart(5)} ms  load ${loadAverage()}\n`,
    );
    if (!recorded) continue;
    series.message.samples.push(message.ms);
    series.messageInsert.samples.push(messageInsertMs);
    series.email.samples.push(email.ms);
    series.emailInsert.samples.push(emailInsertMs);
    series.single.samples.push(single.ms);
    series.preview.samples.push(preview.ms);
    series.peer.samples.push(peer.ms);
  }

  // --- One more creation, its recipient statement under EXPLAIN ANALYZE.
  await settle();
  probe.explain = {};
  const explained = await createSystemAnnouncement({ deps: instrumented, actor, input: input("message", allUsers, "explained") });
  const plan = probe.explain.plan!;
  probe.explain = undefined;
  // Under EXPLAIN the statement reports no row count, so the creation's own counts are meaningless here;
  // the plan's ModifyTable node shows how many rows were written.
  void explained;
  const [recipientRows] = await db.execute<{ count: number }>(sql`select count(*)::int as count from announcement_recipients`);

  // --- Report.
  const walk = (node: PlanNode, depth: number, lines: string[]) => {
    const relation = node["Relation Name"] ? ` on ${node["Relation Name"]}` : "";
    const subplan = node["Subplan Name"] ? ` (${node["Subplan Name"]})` : "";
    const sort = node["Sort Method"] ? `, ${node["Sort Method"]} ${node["Sort Space Used"]} kB ${node["Sort Space Type"]}` : "";
    const wal = node["WAL Bytes"] ? `, WAL ${(node["WAL Bytes"] / 1024 / 1024).toFixed(1)} MiB` : "";
    lines.push(
      `${"  ".repeat(depth)}${node["Node Type"]}${relation}${subplan}: ${node["Actual Total Time"].toFixed(1)} ` +
        `ms, ${fmt(node["Actual Rows"])} rows${sort}${wal}`,
    );
    for (const child of node.Plans ?? []) walk(child, depth + 1, lines);
  };
  const planLines: string[] = [];
  walk(plan.Plan, 0, planLines);
  const find = (node: PlanNode, type: string): PlanNode | undefined =>
    node["Node Type"] === type ? node : (node.Plans ?? []).map((child) => find(child, type)).find(Boolean);
  const modify = find(plan.Plan, "ModifyTable");
  const sourceMs = modify?.Plans?.[0]?.["Actual Total Time"] ?? Number.NaN;
  const insertSelfMs = (modify?.["Actual Total Time"] ?? Number.NaN) - sourceMs;

  const insertMedian = stats(series.messageInsert.samples).median;
  const emailInsertMedian = stats(series.emailInsert.samples).median;
  const peerMedian = stats(series.peer.samples).median;
  const goalMet = Math.max(insertMedian, emailInsertMedian) <= GOAL_MS;
  const cpus = os.cpus();
  const row = (entry: Series) => {
    const { median, min, max } = stats(entry.samples);
    return `| ${entry.label} | ${ms(median)} | ${ms(min)} | ${ms(max)} | ${(median / peerMedian).toFixed(2)}× |`;
  };
  const lines = [
    "# Creating an announcement for every user",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} with \`node --import tsx bench/announcement-create.ts ` +
      `--users ${USERS}\` on ${cpus.length} cores (${cpus[0]?.model?.trim() ?? "unknown"}), ` +
      `${Math.round(os.totalmem() / 1024 ** 3)} GiB RAM, Node ${process.version}, ${os.type()} ` +
      `${os.release()}; embedded PostgreSQL (shared_buffers 128 MB, fsync and synchronous_commit ` +
      `on). Load average (1 / 5 / 15 min) at the start: ${loadAtStart}, at the end: ${loadAverage()}.`,
    "",
    `${fmt(USERS)} seeded users plus the server admin who sends: ${fmt(userCount)} recipients ` +
      `per announcement (the admin is one of them, acknowledged at creation). Seeding took ` +
      `${ms(seedMs)} ms (one INSERT ... SELECT generate_series). ${ROUNDS} measured rounds ` +
      `after ${WARMUP} warm-up; in each round every row below ran once, in this order. ` +
      `Recipient rows of earlier rounds are kept (the table held ${fmt(recipientRows!.count)} ` +
      `rows at the end); \`VACUUM (ANALYZE)\` and \`CHECKPOINT\` ran between rounds, outside ` +
      `the timings.`,
    "",
    "| What | median ms | min ms | max ms | × peer (median) |",
    "|---|---:|---:|---:|---:|",
    ...Object.values(series).map(row),
    "",
    `Goal (issue 4): recipient rows of ${fmt(USERS)} users written in at most ${fmt(GOAL_MS)} ` +
      `ms. Median recipient statement: ${ms(insertMedian)} ms (\`message\`), ${ms(emailInsertMedian)} ` +
      `ms (\`email\`): **${goalMet ? "met" : "not met"}**.`,
    "",
    `The recipient statement is timed where it runs, inside createSystemAnnouncement (round ` +
      `trip from Node of the one \`INSERT ... SELECT\`). The whole call adds the sender ` +
      `check, the announcement row and its update with the counts, the realtime event, ` +
      `the audit entry, the email jobs (\`email\`: ${Math.min(4, Math.ceil(userCount / 500))} ` +
      `graphile-worker jobs queued, none run here) and the commit. Row width (avg \`pg_column_size\` ` +
      `of the row): ours ${widths?.ours ?? "?"} B, the peer's ${widths?.peer ?? "?"} B ` +
      `(same columns, the document as plain text). The peer has no primary key and no index; ` +
      `announcement_recipients has the primary key (\`<announcementId>:<userId>\`, C collation; ` +
      `rows of one announcement are read as its range) and nothing else (email delivery ` +
      `walks the same range).`,
    "",
    "Breakdown of one more creation (`message`), its recipient statement run under `EXPLAIN " +
      "(ANALYZE, BUFFERS, WAL)` (timing instrumentation makes it slower than the rows above):",
    "",
    `- resolving the recipients (scan users, sort, one row per user, build the documents): ${ms(sourceMs)} ms`,
    `- writing them (heap rows and indexes): ${ms(insertSelfMs)} ms`,
    `- execution ${ms(plan["Execution Time"])} ms, planning ${ms(plan["Planning Time"])} ms` +
      (plan.Triggers?.length
        ? `, triggers ${plan.Triggers.map((trigger) => `${trigger["Trigger Name"]} ${ms(trigger.Time)} ms`).join(", ")}`
        : ", no triggers"),
    "",
    "```",
    ...planLines,
    "```",
    "",
  ];
  const markdown = lines.join("\n");
  const resultFile = path.join(path.dirname(fileURLToPath(import.meta.url)), "results", "announcement-create.md");
  await fsp.mkdir(path.dirname(resultFile), { recursive: true });
  // Through a `.tmp` sibling, so a crash never leaves half a file.
  await fsp.writeFile(`${resultFile}.tmp`, markdown);
  await fsp.rename(`${resultFile}.tmp`, resultFile);
  process.stdout.write(`\n${markdown}\nwritten to bench/results/announcement-create.md\n`);
}

let failed = false;
try {
  await main();
} catch (error) {
  failed = true;
  process.stderr.write(`[bench] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
} finally {
  await stopEverything();
}
process.exit(failed ? 1 : 0);
