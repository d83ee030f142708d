#!/usr/bin/env node
// HTTP overhead of Meridian's stack compared with a bare Hono app.
//
//   node bench/http-overhead.mjs [--duration 10] [--connections 100] [--warmup 3]
//
// Starts two child processes from the repo root:
//   peer      bench/peer-hono.mjs: Hono + @hono/node-server, one route returning small JSON
//   meridian  node --import tsx apps/server/src/main.ts, MERIDIAN_ROLE=all, a fresh temporary
//             DATA_DIR (embedded PostgreSQL and S3), free ports, LOG_LEVEL=warn
// signs up one user, then drives each target with autocannon (programmatic API) for a short
// unrecorded warm-up and then `--duration` seconds with `--connections` connections:
//   (a) peer GET /hello                    no middleware, no I/O
//   (b) GET /api/health/live               Meridian's middleware chain, no database
//   (c) GET /api/v1/auth/me  (bearer)      + token lookup: 2 queries (session, user)
//   (d) GET /api/v1/user/profile (bearer)  + token lookup and a profile read: 3 queries
// and prints a markdown table (also written to bench/results/http-overhead.md). RSS is the
// VmRSS of each server process: idle (3 s after sign-up, before any load) and after the load.
// autocannon runs inside this process, on the same cores as the servers.
import path from "node:path";
import {
  cpuSeconds,
  freePort,
  installCleanupHooks,
  loadAverage,
  numberOption,
  runAutocannon,
  machineDescription,
  makeTempDir,
  mib,
  postgresCpuSeconds,
  postgresPss,
  readPeakRss,
  readRss,
  removeTempDirs,
  repoRoot,
  sleep,
  spawnMeridian,
  spawnTracked,
  stopChild,
  waitForStatus,
  writeResult,
  cleanEnv,
} from "./lib.mjs";

const DURATION_S = numberOption("duration", 10);
const CONNECTIONS = numberOption("connections", 100);
const WARMUP_S = numberOption("warmup", 3);
const IDLE_SETTLE_MS = 3000;

installCleanupHooks();
const loadAtStart = loadAverage();

async function json(response) {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function main() {
  const dataDir = await makeTempDir("http");
  let meridian;
  let peer;
  try {
    const [peerPort, port, postgresPort] = [await freePort(), await freePort(), await freePort()];
    peer = spawnTracked("peer", process.execPath, [path.join("bench", "peer-hono.mjs"), String(peerPort)], { env: cleanEnv({ NODE_ENV: "production" }) });
    meridian = spawnMeridian({ dataDir, port, postgresPort });
    const peerUrl = `http://127.0.0.1:${peerPort}`;
    await waitForStatus(peer, `${peerUrl}/hello`, { timeoutMs: 30_000 });
    const readyMs = await waitForStatus(meridian, `${meridian.baseUrl}/api/health`);
    process.stdout.write(`peer on ${peerUrl}; Meridian on ${meridian.baseUrl} (ready after ${(readyMs / 1000).toFixed(1)} s, DATA_DIR ${dataDir})\n`);

    // One user and a session token for the authenticated routes.
    const signup = await fetch(`${meridian.baseUrl}/api/v1/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: `bench-${Date.now()}@example.com`, password: "bench-password-1", name: "Bench User" }),
    });
    const signupBody = await json(signup);
    if (signup.status !== 201 || !signupBody.token) throw new Error(`signup answered ${signup.status}: ${JSON.stringify(signupBody)}`);
    const auth = { authorization: `Bearer ${signupBody.token}` };

    const targets = [
      { label: "(a) peer: bare Hono `GET /hello`", process: peer, url: `${peerUrl}/hello` },
      { label: "(b) Meridian `GET /api/health/live`", process: meridian, url: `${meridian.baseUrl}/api/health/live` },
      { label: "(c) Meridian `GET /api/v1/auth/me` (bearer)", process: meridian, url: `${meridian.baseUrl}/api/v1/auth/me`, headers: auth },
      { label: "(d) Meridian `GET /api/v1/user/profile` (bearer)", process: meridian, url: `${meridian.baseUrl}/api/v1/user/profile`, headers: auth },
    ];
    for (const target of targets) {
      const response = await fetch(target.url, { headers: target.headers });
      const body = await json(response);
      if (response.status !== 200) throw new Error(`${target.url} answered ${response.status}: ${JSON.stringify(body)}`);
      target.bytes = Buffer.byteLength(JSON.stringify(body));
    }

    await sleep(IDLE_SETTLE_MS);
    const idle = { meridian: readRss(meridian.pid), peer: readRss(peer.pid), postgres: postgresPss(dataDir) };
    process.stdout.write(`idle RSS: Meridian ${mib(idle.meridian)}, peer ${mib(idle.peer)}, embedded PostgreSQL PSS ${mib(idle.postgres)}\n\n`);

    const rows = [];
    for (const target of targets) {
      if (WARMUP_S > 0) await runAutocannon({ url: target.url, headers: target.headers, connections: CONNECTIONS, duration: WARMUP_S });
      const cpuBefore = cpuSeconds(target.process.pid);
      const pgBefore = target.process === meridian ? postgresCpuSeconds(dataDir) : 0;
      const result = await runAutocannon({ url: target.url, headers: target.headers, connections: CONNECTIONS, duration: DURATION_S });
      const serverCpu = cpuSeconds(target.process.pid) - cpuBefore;
      const postgresCpu = target.process === meridian ? postgresCpuSeconds(dataDir) - pgBefore : 0;
      const row = {
        label: target.label,
        bytes: target.bytes,
        rps: result.requests.average,
        total: result.requests.total,
        p50: result.latency.p50,
        p99: result.latency.p99,
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
        serverCpu,
        postgresCpu,
        perCpuSecond: result["2xx"] / Math.max(serverCpu + postgresCpu, 0.001),
      };
      rows.push(row);
      process.stdout.write(
        `${row.label.padEnd(52)} ${row.rps.toFixed(0).padStart(7)} req/s  p50 ${String(row.p50).padStart(4)} ` +
          `ms  p99 ${String(row.p99).padStart(4)} ms  non-2xx ${row.non2xx}  errors ${row.errors} ` +
          ` server CPU ${row.serverCpu.toFixed(1)} s  PostgreSQL CPU ${row.postgresCpu.toFixed(1)} ` +
          `s\n`,
      );
      await sleep(1000);
    }
    const after = {
      meridian: readRss(meridian.pid),
      meridianPeak: readPeakRss(meridian.pid),
      peer: readRss(peer.pid),
      peerPeak: readPeakRss(peer.pid),
      postgres: postgresPss(dataDir),
    };

    const machine = machineDescription();
    const lines = [
      "# HTTP overhead",
      "",
      `Measured ${new Date().toISOString().slice(0, 10)} with \`node bench/http-overhead.mjs\` ` +
        `(${CONNECTIONS} connections, ${DURATION_S} s per target after a ${WARMUP_S} s warm-up) ` +
        `on ${machine.cores} cores (${machine.cpuModel}), ${machine.memory} RAM, Node ${machine.node}, ` +
        `${machine.platform}. Load average (1 / 5 / 15 min) at the start: ${loadAtStart}, ` +
        `at the end: ${machine.loadAverage}. autocannon, the servers and the embedded PostgreSQL ` +
        `share these cores with each other and with other work on the machine, so the absolute ` +
        `numbers are noisy; compare the rows with each other.`,
      "",
      "| Target | Body | Requests/s | p50 | p99 | Non-2xx / errors | Server CPU | PostgreSQL CPU | 2xx per CPU-second |",
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
      ...rows.map(
        (row) =>
          `| ${row.label} | ${row.bytes} B | ${Math.round(row.rps).toLocaleString("en-US")} ` +
          `| ${row.p50} ms | ${row.p99} ms | ${row.non2xx} / ${row.errors + row.timeouts} | ` +
          `${row.serverCpu.toFixed(1)} s | ${row.postgresCpu ? `${row.postgresCpu.toFixed(1)} s` : "–"} ` +
          `| ${Math.round(row.perCpuSecond).toLocaleString("en-US")} |`,
      ),
      "",
      "| Process | RSS idle (before load) | RSS after load | Peak RSS (VmHWM) |",
      "|---|---:|---:|---:|",
      `| Meridian server (node, MERIDIAN_ROLE=all) | ${mib(idle.meridian)} | ${mib(after.meridian)} | ${mib(after.meridianPeak)} |`,
      `| Peer (bare Hono) | ${mib(idle.peer)} | ${mib(after.peer)} | ${mib(after.peerPeak)} |`,
      `| Embedded PostgreSQL (PSS, postmaster + backends) | ${mib(idle.postgres)} | ${mib(after.postgres)} | – |`,
      "",
      "Server CPU: user + system CPU seconds of the server process during the measured run (from " +
        "/proc/<pid>/stat); PostgreSQL CPU: the same for the embedded postmaster and its backends. " +
        "2xx per CPU-second divides the successful responses by both, which depends less on what " +
        "else the machine is doing than requests/s does.",
    ];
    const markdown = `${lines.join("\n")}\n`;
    const file = await writeResult("http-overhead.md", markdown);
    process.stdout.write(`\n${markdown}\nwritten to ${path.relative(repoRoot, file)}\n`);
  } finally {
    if (meridian) {
      const exit = await stopChild(meridian);
      if (exit && exit.code !== 0) process.stderr.write(`[bench] Meridian exited with ${JSON.stringify(exit)}\n${meridian.output}\n`);
    }
    if (peer) await stopChild(peer);
    await removeTempDirs();
  }
}

await main();
