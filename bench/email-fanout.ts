/**
 * How fast does an announcement's email fan-out reach a mail server, and how quickly does it
 * recover when a worker is killed half-way? Issue 9's goals: 10,000 messages to a local SMTP
 * sink within 60 s; after a `kill -9` of the worker during a 2,000-recipient fan-out and a new
 * worker, everything delivered within 1.5× the uncrashed time plus the detection delay.
 *
 *   node --import tsx bench/email-fanout.ts [--messages 10000] [--crash-messages 2000]
 *
 * In one run, over startRuntime on a throw-away DATA_DIR (embedded PostgreSQL on a free port)
 * and an SMTP sink in this process (smtp-server, counting each accepted message):
 *   peer      a bare nodemailer loop: one pooled transport with SMTP_POOL_SIZE connections, the
 *             same `--messages` messages (same size, one recipient each) with as many in flight
 *             as there are connections;
 *   fan-out   Meridian's real path: users seeded in one statement, a system announcement with
 *             email delivery to all of them (createSystemAnnouncement), one worker process
 *             (`node --import tsx apps/worker/src/main.ts`, as `pnpm start:worker`) delivering;
 *             timed from the creation to the sink's last message;
 *   crash     `--crash-messages` recipients, twice: uncrashed (one worker process), and crashed:
 *             the worker is killed with SIGKILL once a quarter of the messages arrived, a second
 *             one started at once; the detection delay is the time from the kill to the moment
 *             the dead worker's heartbeat was removed (its jobs unlocked, its claims released).
 * Every run checks that each recipient got exactly one message. Results:
 * bench/results/email-fanout.md.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createLogger, loadEnv } from "@meridian/config";
import { usersCollection } from "@meridian/db";
import { createSystemAnnouncement } from "@meridian/domain/announcements";
import { actorFromUser, startRuntime, type Runtime } from "@meridian/domain/platform";
import { sql } from "drizzle-orm";
import nodemailer from "nodemailer";
import { SMTPServer } from "smtp-server";
import { freePort } from "../scripts/free-port";

const option = (name: string, fallback: number) => {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} needs a positive whole number`);
  return value;
};
const MESSAGES = option("messages", 10_000);
const CRASH_MESSAGES = option("crash-messages", 2_000);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const loadAverage = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(" / ");
const loadAtStart = loadAverage();
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Accepts everything and counts messages per recipient address. */
async function startSink() {
  const received = new Map<string, number>();
  let total = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onRcptTo(address, session, callback) {
      (session as unknown as { recipient: string }).recipient = address.address.toLowerCase();
      callback();
    },
    onData(stream, session, callback) {
      stream.on("data", () => undefined);
      stream.on("end", () => {
        const to = (session as unknown as { recipient: string }).recipient;
        received.set(to, (received.get(to) ?? 0) + 1);
        total += 1;
        callback();
      });
    },
  });
  server.on("error", () => undefined);
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `smtp://127.0.0.1:${port}`,
    total: () => total,
    received,
    reset() {
      received.clear();
      total = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
type Sink = Awaited<ReturnType<typeof startSink>>;

const tempDirs: string[] = [];
const children = new Set<ChildProcess>();
let runtime: Runtime | undefined;
let sink: Sink | undefined;

async function cleanup() {
  for (const child of children) child.kill("SIGKILL");
  await runtime?.stop().catch(() => undefined);
  await sink?.close().catch(() => undefined);
  for (const dir of tempDirs) await fsp.rm(dir, { recursive: true, force: true }).catch(() => undefined);
}
process.on("SIGINT", () => void cleanup().then(() => process.exit(130)));

async function tempDir(label: string) {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), `meridian-bench-${label}-`));
  await fsp.chmod(dir, 0o755);
  tempDirs.push(dir);
  return dir;
}

/** A worker process as `pnpm start:worker` runs it, over the benchmark's database. */
async function startWorkerProcess(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "apps/worker/src/main.ts"], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  child.once("exit", () => children.delete(child));
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 60_000;
  while (!output.includes("Meridian worker running")) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`worker did not start:\n${output}`);
    await sleep(20);
  }
  return child;
}

const message = (index: number) => ({
  from: "Meridian <no-reply@meridian.local>",
  to: `peer-${index}@example.com`,
  subject: "Maintenance tonight",
  text: "The observatory network goes down for maintenance at 22:00 UTC.\n\n— the Meridian administrators",
  messageId: `<peer.${index}@meridian>`,
});

async function runPeer(count: number, poolSize: number) {
  sink!.reset();
  const transport = nodemailer.createTransport({
    host: "127.0.0.1",
    port: Number(new URL(sink!.url).port),
    pool: true,
    maxConnections: poolSize,
    maxMessages: 1000,
    secure: false,
    ignoreTLS: true,
  });
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: poolSize }, async () => {
      while (next < count) await transport.sendMail(message(next++));
    }),
  );
  const elapsed = performance.now() - started;
  transport.close();
  return elapsed;
}

function exactlyOnce(emails: string[]) {
  const wrong = emails.filter((email) => sink!.received.get(email.toLowerCase()) !== 1);
  if (wrong.length > 0)
    throw new Error(`${wrong.length} recipients did not get exactly one message (e.g. ${wrong[0]}: ${sink!.received.get(wrong[0]!.toLowerCase()) ?? 0})`);
}

async function seedUsers(tag: string, count: number): Promise<string[]> {
  const db = runtime!.deps.db;
  const rows = await db.execute<{ id: string; email: string }>(sql`
    insert into users (id, doc, email_lower, created_at, updated_at)
    select 'usr_' || ${tag} || '_' || i,
           jsonb_build_object('email', ${tag} || '-' || i || '@example.com', 'name', 'Recipient ' || i, 'passwordHash', 'x', 'roles', '[]'::jsonb,
             'notificationPreferences', jsonb_build_object('email', true, 'push', false, 'systemEvents', true, 'observationEvents', true), 'avatar', null),
           ${tag} || '-' || i || '@example.com', now(), now()
      from generate_series(1, ${count}::int) as i
    returning id, doc->>'email' as email`);
  return rows.map((row) => row.id).length === count ? rows.map((row) => row.email) : [];
}

async function announceTo(tag: string, count: number, admin: Awaited<ReturnType<typeof usersCollection.insert>>) {
  const emails = await seedUsers(tag, count);
  const ids = (await runtime!.deps.db.execute<{ id: string }>(sql`select id from users where id like ${`usr_${tag}_%`}`)).map((row) => row.id);
  await createSystemAnnouncement({
    deps: runtime!.deps,
    actor: actorFromUser({ user: admin }),
    input: {
      title: `Fan-out ${tag}`,
      message: "The observatory network goes down for maintenance at 22:00 UTC.",
      severity: "info",
      deliveryType: "email",
      targets: { users: { all: false, ids } },
    },
  });
  return emails;
}

async function waitForTotal(count: number, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (sink!.total() < count) {
    if (Date.now() > deadline) throw new Error(`only ${sink!.total()} of ${count} messages within ${timeoutMs} ms`);
    await sleep(10);
  }
}

async function main() {
  sink = await startSink();
  const dataDir = await tempDir("fanout");
  const env = loadEnv({
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    NODE_ENV: "production",
    EMBEDDED_POSTGRES_PORT: String(await freePort()),
    SMTP_URL: sink.url,
    SECRETS_KEY: "bench secrets key",
  });
  runtime = await startRuntime({ env, logger: createLogger({ level: "warn" }), kind: "all" });
  const admin = await usersCollection.insert(runtime.deps.db, {
    email: "bench-admin@example.com",
    name: "Bench Admin",
    passwordHash: "x",
    roles: ["serverAdmin"],
    notificationPreferences: { email: false, push: false, systemEvents: true, observationEvents: true },
    avatar: null,
  });
  const workerEnv = async () => ({
    DATA_DIR: await tempDir("worker"),
    DATABASE_URL: runtime!.databaseUrl,
    SECRETS_KEY: "bench secrets key",
    SMTP_URL: sink!.url,
    S3_ENDPOINT: env.S3_ENDPOINT ?? "",
    S3_BUCKET: env.S3_BUCKET,
    S3_ACCESS_KEY_ID: env.S3_ACCESS_KEY_ID ?? "",
    S3_SECRET_ACCESS_KEY: env.S3_SECRET_ACCESS_KEY ?? "",
    S3_FORCE_PATH_STYLE: "true",
  });

  // Peer first, then Meridian, on the same sink.
  const peerMs = await runPeer(MESSAGES, env.SMTP_POOL_SIZE);

  sink.reset();
  let worker = await startWorkerProcess(await workerEnv());
  const fanoutStarted = performance.now();
  const fanoutEmails = await announceTo("fanout", MESSAGES, admin);
  await waitForTotal(MESSAGES, 300_000);
  const fanoutMs = performance.now() - fanoutStarted;
  exactlyOnce(fanoutEmails);

  // Crash recovery: uncrashed, then crashed, with a fresh worker each time (a worker warmed by
  // the 10,000-message run would make the uncrashed side faster than any fresh process can be).
  worker.kill("SIGTERM");
  await new Promise((resolve) => worker.once("exit", resolve));
  worker = await startWorkerProcess(await workerEnv());
  sink.reset();
  const uncrashedStarted = performance.now();
  const uncrashedEmails = await announceTo("uncrashed", CRASH_MESSAGES, admin);
  await waitForTotal(CRASH_MESSAGES, 300_000);
  const uncrashedMs = performance.now() - uncrashedStarted;
  exactlyOnce(uncrashedEmails);
  worker.kill("SIGTERM");
  await new Promise((resolve) => worker.once("exit", resolve));

  sink.reset();
  worker = await startWorkerProcess(await workerEnv());
  const crashedStarted = performance.now();
  const crashedEmails = await announceTo("crashed", CRASH_MESSAGES, admin);
  while (sink.total() < CRASH_MESSAGES / 4) await sleep(1);
  const [beat] = await runtime.deps.db.execute<{ worker_id: string }>(sql`select worker_id from worker_heartbeats order by last_seen_at desc limit 1`);
  worker.kill("SIGKILL");
  const killedAt = performance.now();
  const sentBeforeKill = sink.total();
  worker = await startWorkerProcess(await workerEnv());
  let detectedAt: number | undefined;
  let resumedAt: number | undefined;
  let detectedTotal = 0;
  const deadline = Date.now() + 300_000;
  // Until every recipient has a message: the total also counts the copies resent after the kill.
  while (sink.received.size < CRASH_MESSAGES || detectedAt === undefined) {
    if (Date.now() > deadline) throw new Error(`crashed run: ${sink.total()} of ${CRASH_MESSAGES} messages`);
    if (detectedAt === undefined) {
      const [left] = await runtime.deps.db.execute<{ n: number }>(sql`select count(*)::int as n from worker_heartbeats where worker_id = ${beat!.worker_id}`);
      if (left!.n === 0) {
        detectedAt = performance.now();
        detectedTotal = sink.total();
      }
    }
    if (detectedAt !== undefined && resumedAt === undefined && sink.total() > detectedTotal) resumedAt = performance.now();
    await sleep(10);
  }
  const crashedMs = performance.now() - crashedStarted;
  const detectionMs = detectedAt - killedAt;
  const resumeMs = (resumedAt ?? detectedAt) - detectedAt;
  const resumedMs = crashedStarted + crashedMs - (resumedAt ?? detectedAt);
  const duplicates = crashedEmails.filter((email) => (sink!.received.get(email.toLowerCase()) ?? 0) > 1).length;
  const missing = crashedEmails.filter((email) => !sink!.received.get(email.toLowerCase())).length;
  worker.kill("SIGTERM");
  await new Promise((resolve) => worker.once("exit", resolve));

  const rate = (count: number, ms: number) => Math.round(count / (ms / 1000)).toLocaleString("en-US");
  const seconds = (ms: number) => (ms / 1000).toFixed(1);
  const goalFanout = fanoutMs <= 60_000;
  const crashBudget = 1.5 * uncrashedMs + detectionMs;
  const goalCrash = crashedMs <= crashBudget;
  const count = (value: number) => value.toLocaleString("en-US");
  const text = [
    "# Email fan-out",
    "",
    `\`node --import tsx bench/email-fanout.ts --messages ${MESSAGES} --crash-messages ${CRASH_MESSAGES}\`, run on ${new Date().toISOString().slice(0, 10)}`,
    `(${os.cpus().length} cores, ${os.cpus()[0]?.model?.trim()}, Node ${process.version}; load average at start ${loadAtStart}, at the end ${loadAverage()}).`,
    `SMTP pool: ${env.SMTP_POOL_SIZE} connections per worker process, ${env.EMAIL_SENDS_IN_FLIGHT} message(s) in flight per email job, ` +
      `${env.WORKER_CONCURRENCY} jobs at once per worker.`,
    "",
    "| Run | Messages | Time | Messages/s |",
    "|---|---:|---:|---:|",
    `| peer: bare nodemailer, pooled, ${env.SMTP_POOL_SIZE} in flight | ${count(MESSAGES)} | ${seconds(peerMs)} s | ${rate(MESSAGES, peerMs)} |`,
    `| Meridian: announcement to every recipient, one worker process | ${count(MESSAGES)} | ${seconds(fanoutMs)} s | ${rate(MESSAGES, fanoutMs)} |`,
    `| Meridian, uncrashed | ${count(CRASH_MESSAGES)} | ${seconds(uncrashedMs)} s | ${rate(CRASH_MESSAGES, uncrashedMs)} |`,
    `| Meridian, worker killed (-9) after ${sentBeforeKill} messages, a new one started at once ` +
      `| ${count(CRASH_MESSAGES)} | ${seconds(crashedMs)} s | ${rate(CRASH_MESSAGES, crashedMs)} |`,
    "",
    `- Goal: ${count(MESSAGES)} messages within 60 s: **${goalFanout ? "met" : "missed"}** ` +
      `(${seconds(fanoutMs)} s; Meridian's rate is ${(peerMs / fanoutMs).toFixed(2)}× the bare loop's).`,
    `- Detection delay (kill → the dead worker's heartbeat removed, its jobs unlocked and claims released): ${seconds(detectionMs)} s; ` +
      `the first message after it ${seconds(resumeMs)} s later, when ${detectedTotal} had arrived; ` +
      `the other ${count(CRASH_MESSAGES - detectedTotal)} took ${seconds(resumedMs)} s (${rate(CRASH_MESSAGES - detectedTotal, resumedMs)} messages/s).`,
    `- Goal: crashed total within 1.5 × uncrashed + detection = ${seconds(crashBudget)} s: **${goalCrash ? "met" : "missed"}** (${seconds(crashedMs)} s).`,
    `- Every recipient of the first three runs got exactly one message. Crashed run: ${duplicates} duplicate(s), ${missing} missing. ` +
      "A message the SMTP server accepted in the instant before the dead worker recorded it as sent is sent again, " +
      "with the same Message-ID, by which mail systems drop it.",
    "",
  ].join("\n");
  await fsp.mkdir(path.join(repoRoot, "bench", "results"), { recursive: true });
  await fsp.writeFile(path.join(repoRoot, "bench", "results", "email-fanout.md"), text);
  process.stdout.write(text);
  if (missing > 0) throw new Error(`${missing} recipients of the crashed run got nothing`);
}

main()
  .catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(cleanup);
