/**
 * How fast do single emails (the outbox: observation notices, system notices, password resets)
 * reach a mail server when many go to few people? Issue 22's goal (point 11): 2,000 messages to
 * 20 recipients through the real outbox and worker at no less than half the rate of a bare
 * nodemailer loop sending 2,000 messages to the same sink.
 *
 *   node --import tsx bench/email-throughput.ts [--messages 2000] [--recipients 20] [--rounds 3]
 *
 * In one run, over startRuntime on a throw-away DATA_DIR (embedded PostgreSQL) and an SMTP sink in
 * this process (smtp-server, keeping each message's recipient, subject and Message-ID):
 *   peer      a bare nodemailer loop: one pooled transport with SMTP_POOL_SIZE connections, the
 *             same messages (same size, text and HTML) with as many in flight as connections;
 *             timed from its first message to its last at the sink;
 *   cold      Meridian's real path after a burst: every message written with `enqueueEmail`, each
 *             in its own transaction (20 writers, one per recipient, each in order), while no
 *             worker runs; then one worker process (`apps/worker/src/main.ts`, as
 *             `pnpm start:worker`) is started, and the drain is timed from the first message to the
 *             last at the sink, like the peer (its first seconds load modules and warm up);
 *   backlog   the goal's measure: the same worker, now running, finds a backlog of as many
 *             messages (one transaction per recipient, committed together), timed likewise;
 *   live      the same writers as `cold` with that worker running, timed from the first write to
 *             the last message at the sink (the writing is part of it; its own time is given beside).
 * The four take turns `--rounds` times (this machine's speed wanders from minute to minute) and
 * the medians are compared. Every Meridian run checks that each recipient got each of its messages
 * exactly once and in the order they were written. Results: bench/results/email-throughput.md.
 */
import os from "node:os";
import { enqueueEmail, type Runtime } from "@meridian/domain/platform";
import { sql } from "drizzle-orm";
import nodemailer from "nodemailer";
import { SMTPServer } from "smtp-server";
import { startBenchRuntime } from "./runtime";
import {
  freePort,
  installCleanupHooks,
  loadAverage,
  makeTempDir,
  median,
  numberOption,
  removeTempDirs,
  sleep,
  spawnWorker,
  stopAll,
  stopChild,
  writeResult,
} from "./lib.mjs";

const MESSAGES = numberOption("messages", 2_000);
const RECIPIENTS = numberOption("recipients", 20);
const ROUNDS = numberOption("rounds", 3);
if (MESSAGES % RECIPIENTS !== 0) throw new Error("--messages must be a multiple of --recipients");
const PER_RECIPIENT = MESSAGES / RECIPIENTS;
const loadAtStart = loadAverage();
const log = (message: string) => process.stderr.write(`[email-throughput] ${message}\n`);

interface Received {
  at: number;
  subject: string;
  messageId: string;
}

/** Accepts everything; keeps, per recipient, each message's subject and Message-ID in arrival order. */
async function startSink() {
  const received = new Map<string, Received[]>();
  let total = 0;
  let firstAt = 0;
  let lastAt = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const head = Buffer.concat(chunks).toString("utf8", 0, 4096);
        const at = performance.now();
        const entry = {
          at,
          subject: head.match(/^Subject: (.*)$/m)?.[1]?.trim() ?? "",
          messageId: head.match(/^Message-ID: (.*)$/im)?.[1]?.trim() ?? "",
        };
        for (const to of session.envelope.rcptTo) {
          const address = to.address.toLowerCase();
          let list = received.get(address);
          if (!list) received.set(address, (list = []));
          list.push(entry);
        }
        total += 1;
        if (total === 1) firstAt = at;
        lastAt = at;
        callback();
      });
    },
  });
  server.on("error", () => undefined);
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    received,
    total: () => total,
    /** From the first message accepted since the last reset to the last one. */
    span: () => lastAt - firstAt,
    lastAt: () => lastAt,
    reset() {
      received.clear();
      total = 0;
      firstAt = 0;
      lastAt = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
type Sink = Awaited<ReturnType<typeof startSink>>;

let runtime: Runtime | undefined;
let sink: Sink | undefined;
installCleanupHooks();
async function cleanup() {
  await stopAll();
  await runtime?.stop().catch(() => undefined);
  await sink?.close().catch(() => undefined);
  await removeTempDirs();
}

const recipientsOf = (tag: string) => Array.from({ length: RECIPIENTS }, (_, index) => `${tag}-${index}@example.com`);

/** An observation notice's size and shape: subject, a few lines of text and the same as HTML. */
function content(recipient: string, index: number) {
  const subject = `Observation M31 mosaic ${index}: in progress`;
  const link = `https://meridian.example.org/app/observations/obs_${index.toString(36).padStart(12, "0")}`;
  const text = `Hello ${recipient},\n\nYour observation "M31 mosaic ${index}" is now in progress.\n\n${link}`;
  const html = `<p>Hello ${recipient},</p>\n<p>Your observation "M31 mosaic ${index}" is now in progress.</p>\n<p><a href="${link}">${link}</a></p>`;
  return { subject, text, html };
}

async function runPeer(tag: string, poolSize: number) {
  sink!.reset();
  const recipients = recipientsOf(tag);
  const transport = nodemailer.createTransport({
    host: "127.0.0.1",
    port: sink!.port,
    pool: true,
    maxConnections: poolSize,
    maxMessages: 1000,
    ignoreTLS: true,
  });
  let next = 0;
  await Promise.all(
    Array.from({ length: poolSize }, async () => {
      while (next < MESSAGES) {
        const n = next++;
        const to = recipients[n % RECIPIENTS]!;
        await transport.sendMail({ from: "Meridian <no-reply@meridian.local>", to, messageId: `<peer.${tag}.${n}@meridian>`, ...content(to, n) });
      }
    }),
  );
  transport.close();
  if (sink!.total() !== MESSAGES) throw new Error(`peer: ${sink!.total()} of ${MESSAGES} messages`);
  return sink!.span();
}

/** One writer per recipient, each writing that recipient's messages in order, one transaction each. */
async function writeMessages(tag: string) {
  const db = runtime!.deps.db;
  const started = performance.now();
  await Promise.all(
    recipientsOf(tag).map(async (to) => {
      for (let index = 0; index < PER_RECIPIENT; index += 1) {
        await db.transaction((tx) => enqueueEmail({ t: { tx }, kind: "observation_status", to, ...content(to, index) }));
      }
    }),
  );
  return performance.now() - started;
}

/**
 * A backlog for a running worker: one transaction per recipient writes all of its messages, and
 * the transactions commit together once all are written, so the worker finds the whole backlog at
 * once (it sees nothing before the commits).
 */
async function writeBacklogAtOnce(tag: string) {
  const db = runtime!.deps.db;
  const recipients = recipientsOf(tag);
  let written = 0;
  let commit!: () => void;
  const committing = new Promise<void>((resolve) => (commit = resolve));
  const transactions = recipients.map((to) =>
    db.transaction(async (tx) => {
      for (let index = 0; index < PER_RECIPIENT; index += 1) await enqueueEmail({ t: { tx }, kind: "observation_status", to, ...content(to, index) });
      if (++written === recipients.length) commit();
      await committing;
    }),
  );
  await Promise.all(transactions);
}

/** Until the sink has every message; fails once a minute passes without a new one. */
async function waitForAll(label: string) {
  let seen = sink!.total();
  let stalledSince = Date.now();
  while (sink!.total() < MESSAGES) {
    if (sink!.total() !== seen) [seen, stalledSince] = [sink!.total(), Date.now()];
    if (Date.now() - stalledSince > 60_000) {
      const rows = await runtime!.deps.db.execute<{ status: string; count: number }>(
        sql`select status, count(*)::int as count from email_outbox group by status order by status`,
      );
      const jobs = await queuedEmailJobs();
      throw new Error(`${label}: stuck at ${seen} of ${MESSAGES} messages; outbox ${JSON.stringify(rows)}, ${jobs} send_email jobs`);
    }
    await sleep(5);
  }
}

/** Each recipient got each of its messages once, in the order written, and every outbox row of the run is marked sent. */
async function checkDelivery(label: string, tag: string) {
  for (const to of recipientsOf(tag)) {
    const subjects = (sink!.received.get(to) ?? []).map((entry) => entry.subject);
    const expected = Array.from({ length: PER_RECIPIENT }, (_, index) => content(to, index).subject);
    if (JSON.stringify(subjects) !== JSON.stringify(expected)) {
      const firstWrong = subjects.findIndex((subject, index) => subject !== expected[index]);
      throw new Error(`${label}: ${to} got ${subjects.length} messages, the ${firstWrong}th out of order or repeated ("${subjects[firstWrong]}")`);
    }
  }
  const unsent = async () => {
    const [row] = await runtime!.deps.db.execute<{ count: number }>(
      sql`select count(*)::int as count from email_outbox where doc->>'to' like ${`${tag}-%`} and status <> 'sent'`,
    );
    return row!.count;
  };
  // The last row is marked sent a moment after the sink accepted its message.
  const settled = Date.now() + 10_000;
  let pending = await unsent();
  while (pending > 0 && Date.now() < settled) {
    await sleep(20);
    pending = await unsent();
  }
  if (pending > 0) throw new Error(`${label}: ${pending} outbox rows not marked sent`);
}

/** send_email jobs waiting now. */
async function queuedEmailJobs() {
  const [row] = await runtime!.deps.db.execute<{ jobs: number }>(sql`
    select count(*)::int as jobs from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
     where t.identifier = 'send_email'`);
  return row!.jobs;
}

async function main() {
  sink = await startSink();
  const dataDir = await makeTempDir("email-throughput");
  // Twenty transactions stay open at once while the backlog is written.
  runtime = await startBenchRuntime(dataDir, { SMTP_URL: sink.url, DATABASE_POOL_SIZE: String(RECIPIENTS + 4) });
  const { env } = runtime.deps;
  const workerEnv = async () => ({
    DATA_DIR: await makeTempDir("worker"),
    DATABASE_URL: runtime!.databaseUrl,
    SECRETS_KEY: "bench secrets key",
    SMTP_URL: sink!.url,
    S3_ENDPOINT: runtime!.deps.storage.endpoint,
    S3_BUCKET: runtime!.deps.storage.bucket,
    S3_ACCESS_KEY_ID: runtime!.deps.storage.credentials.accessKeyId,
    S3_SECRET_ACCESS_KEY: runtime!.deps.storage.credentials.secretAccessKey,
    S3_FORCE_PATH_STYLE: "true",
  });

  const peerRuns: number[] = [];
  const coldRuns: Array<{ drainMs: number; writeMs: number; jobs: number }> = [];
  const backlogRuns: number[] = [];
  const liveRuns: Array<{ totalMs: number; writeMs: number }> = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    log(`round ${round}: peer`);
    peerRuns.push(await runPeer(`peer${round}`, env.SMTP_POOL_SIZE));

    log(`round ${round}: backlog written with no worker running, then a worker started`);
    sink.reset();
    const coldTag = `cold${round}`;
    const writeMs = await writeMessages(coldTag);
    const jobs = await queuedEmailJobs();
    const worker = await spawnWorker(await workerEnv());
    await waitForAll("backlog for a new worker");
    coldRuns.push({ drainMs: sink.span(), writeMs, jobs });
    await checkDelivery("backlog for a new worker", coldTag);

    log(`round ${round}: backlog for the running worker`);
    sink.reset();
    const backlogTag = `backlog${round}`;
    await writeBacklogAtOnce(backlogTag);
    await waitForAll("backlog");
    backlogRuns.push(sink.span());
    await checkDelivery("backlog", backlogTag);

    log(`round ${round}: live (writing with the worker running)`);
    sink.reset();
    const liveTag = `live${round}`;
    const started = performance.now();
    const liveWriteMs = await writeMessages(liveTag);
    await waitForAll("live");
    liveRuns.push({ totalMs: sink.lastAt() - started, writeMs: liveWriteMs });
    await checkDelivery("live", liveTag);
    await stopChild(worker);
  }

  const peerMs = median(peerRuns);
  const drainMs = median(backlogRuns);
  const coldMs = median(coldRuns.map((run) => run.drainMs));
  const liveMs = median(liveRuns.map((run) => run.totalMs));
  const rate = (ms: number) => Math.round(MESSAGES / (ms / 1000)).toLocaleString("en-US");
  const seconds = (ms: number) => (ms / 1000).toFixed(2);
  const list = (values: number[]) => values.map(seconds).join(", ");
  const ratio = peerMs / drainMs;
  const count = (value: number) => value.toLocaleString("en-US");
  const row = (label: string, ms: number, rounds: number[]) => `| ${label} | ${seconds(ms)} s | ${rate(ms)} | ${list(rounds)} | ${(peerMs / ms).toFixed(2)}× |`;
  const text = [
    "# Email throughput: many messages to few recipients",
    "",
    `\`node --import tsx bench/email-throughput.ts --messages ${MESSAGES} --recipients ${RECIPIENTS} --rounds ${ROUNDS}\`, ` +
      `run on ${new Date().toISOString().slice(0, 10)}`,
    `(${os.cpus().length} cores, ${os.cpus()[0]?.model?.trim()}, Node ${process.version}; load average at start ${loadAtStart}, at the end ${loadAverage()}).`,
    `SMTP pool: ${env.SMTP_POOL_SIZE} connections per worker process, and as many recipients' send_email jobs at once ` +
      `(beside ${env.WORKER_CONCURRENCY} other jobs).`,
    `${count(MESSAGES)} messages, ${count(PER_RECIPIENT)} to each of ${RECIPIENTS} recipients; ` + `the four runs took turns, ${ROUNDS} rounds; medians.`,
    "",
    "| Run | Time (median) | Messages/s | Rounds | × peer |",
    "|---|---:|---:|---|---:|",
    row(`peer: bare nodemailer, pooled, ${env.SMTP_POOL_SIZE} in flight, first to last message`, peerMs, peerRuns),
    row("Meridian, backlog drained by the running worker process, first to last message", drainMs, backlogRuns),
    row(
      "Meridian, backlog drained by a worker process started after it was written, first to last message",
      coldMs,
      coldRuns.map((run) => run.drainMs),
    ),
    row(
      "Meridian, live: writes (one transaction per message) and delivery together, first write to last message",
      liveMs,
      liveRuns.map((run) => run.totalMs),
    ),
    "",
    `- Goal: the backlog drained at ≥ 0.5× the bare loop's rate: **${ratio >= 0.5 ? "met" : "missed"}** (${ratio.toFixed(2)}×; ` +
      `the rounds' own ratios ${peerRuns.map((peer, index) => (peer / backlogRuns[index]!).toFixed(2)).join(", ")}).`,
    `- Writing the ${count(MESSAGES)} messages one transaction each (${RECIPIENTS} writers): ${list(coldRuns.map((run) => run.writeMs))} s ` +
      `with no worker running, ${list(liveRuns.map((run) => run.writeMs))} s beside the worker; ` +
      `send_email jobs queued after the first: ${coldRuns.map((run) => count(run.jobs)).join(", ")}.`,
    "- Every recipient of every Meridian run got each of its messages exactly once, in the order they were written, and every outbox row was marked sent.",
    "",
  ].join("\n");
  await writeResult("email-throughput.md", text);
  process.stdout.write(text);
}

main()
  .catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(cleanup);
