#!/usr/bin/env node
// Hot reads against a bare Hono route serving a body of the same size (issue 26, point 5):
//   GET /api/v1/user/motd/pending   the check every signed-in page makes
//   GET /api/v1/auth/me             who is signed in
//   GET /observations               the observations page's first page
// each at --connections (100) connections for --duration (5) s, peer and Meridian alternating
// (the order flips every round), --rounds (3) rounds; the ratio is the median of Meridian's
// requests/s over the median of the peer's. Goal: at least 0.5× for each. A ratio below it
// fails the run (exit 1) after the table is written, so `pnpm bench` says it loudly.
//
//   node bench/hot-reads.mjs [--duration 5] [--connections 100] [--rounds 3] [--warmup 2]
//
// Starts from the repo root: bench/peer-hono.mjs (`GET /bytes/:n`) and the real server
// (MERIDIAN_ROLE=all, NODE_ENV=production, embedded PostgreSQL and S3 in a fresh DATA_DIR, the
// default request caches). Seeds through the API one user with 3 pending announcements, a project,
// an observatory and 20 observations. Every response must be 200 with the body fetched before the
// run. Results: bench/results/hot-reads.md.
import path from "node:path";
import {
  cleanEnv,
  cpuSeconds,
  freePort,
  installCleanupHooks,
  loadAverage,
  machineDescription,
  makeTempDir,
  median,
  numberOption,
  removeTempDirs,
  repoRoot,
  runAutocannon,
  sleep,
  spawnMeridian,
  spawnTracked,
  stopChild,
  waitForStatus,
  writeResult,
} from "./lib.mjs";
import { ADMIN, call, seedPendingAnnouncements } from "./seed-announcements.mjs";

const DURATION_S = numberOption("duration", 5);
const CONNECTIONS = numberOption("connections", 100);
const ROUNDS = numberOption("rounds", 3);
const WARMUP_S = numberOption("warmup", 2);
const GOAL_RATIO = 0.5;

installCleanupHooks();
const loadAtStart = loadAverage();

/** A project, an observatory and 20 observations of the user, through the API. */
async function seedObservations(baseUrl, token) {
  const project = (await call(baseUrl, "POST", "/projects", { token, body: { name: "Hot reads" }, expect: 201 })).body;
  const observatory = (await call(baseUrl, "POST", "/observatories", { token, body: { name: "Hot reads observatory" }, expect: 201 })).body;
  for (let index = 0; index < 20; index += 1) {
    await call(baseUrl, "POST", "/observations", {
      token,
      expect: 201,
      body: {
        name: `Field ${index}`,
        projectId: project.id,
        observatoryId: observatory.id,
        targets: [{ name: `NGC ${7000 + index}`, ra: 300 + index, dec: 40, exposures: [{ filter: "L", exposureSeconds: 300, count: 12, binning: 1 }] }],
      },
    });
  }
}

async function bodyOf(url, headers) {
  const response = await fetch(url, { headers });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return text;
}

async function drive(target) {
  const cpuBefore = cpuSeconds(target.pid);
  const result = await runAutocannon({ url: target.url, headers: target.headers, connections: CONNECTIONS, duration: DURATION_S, expectBody: target.body });
  const failed = result.non2xx + result.errors + result.timeouts + result.mismatches;
  if (failed > 0)
    throw new Error(
      `${target.url}: ${failed} failed responses (non-2xx ${result.non2xx}, errors ${result.errors}, ` +
        `timeouts ${result.timeouts}, mismatches ${result.mismatches})`,
    );
  return { rps: result.requests.average, p99: result.latency.p99, cpu: cpuSeconds(target.pid) - cpuBefore };
}

async function main() {
  let peer;
  let meridian;
  try {
    const peerPort = await freePort();
    peer = spawnTracked("peer", process.execPath, [path.join("bench", "peer-hono.mjs"), String(peerPort)], { env: cleanEnv({ NODE_ENV: "production" }) });
    const peerUrl = `http://127.0.0.1:${peerPort}`;
    await waitForStatus(peer, `${peerUrl}/hello`, { timeoutMs: 30_000 });

    const dataDir = await makeTempDir("hot-reads");
    meridian = spawnMeridian({
      dataDir,
      port: await freePort(),
      postgresPort: await freePort(),
      extraEnv: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password },
    });
    await waitForStatus(meridian, `${meridian.baseUrl}/api/health`);
    const { userToken } = await seedPendingAnnouncements(meridian.baseUrl);
    await seedObservations(meridian.baseUrl, userToken);
    const auth = { authorization: `Bearer ${userToken}` };

    const routes = [];
    for (const [label, route] of [
      ["`GET /api/v1/user/motd/pending`", "/api/v1/user/motd/pending"],
      ["`GET /api/v1/auth/me`", "/api/v1/auth/me"],
      ["`GET /observations` (first page)", "/observations"],
    ]) {
      const url = `${meridian.baseUrl}${route}`;
      const body = await bodyOf(url, auth);
      const bytes = Buffer.byteLength(body);
      const peerTarget = { url: `${peerUrl}/bytes/${bytes}`, pid: peer.pid };
      peerTarget.body = await bodyOf(peerTarget.url);
      if (Buffer.byteLength(peerTarget.body) !== bytes) throw new Error(`the peer's body for ${bytes} bytes has ${Buffer.byteLength(peerTarget.body)}`);
      routes.push({ label, bytes, meridian: { url, headers: auth, body, pid: meridian.pid }, peer: peerTarget, runs: { meridian: [], peer: [] } });
    }

    for (const route of routes)
      for (const side of [route.peer, route.meridian])
        await runAutocannon({ url: side.url, headers: side.headers, connections: CONNECTIONS, duration: WARMUP_S, expectBody: side.body });

    for (let round = 0; round < ROUNDS; round += 1) {
      for (const route of routes) {
        const order = round % 2 === 0 ? ["peer", "meridian"] : ["meridian", "peer"];
        for (const side of order) {
          const run = await drive(route[side]);
          route.runs[side].push(run);
          process.stdout.write(
            `round ${round + 1} ${route.label} ${side.padEnd(8)} ${run.rps.toFixed(0).padStart(7)} req/s  p99 ${run.p99} ms  CPU ${run.cpu.toFixed(1)} s\n`,
          );
          await sleep(500);
        }
      }
    }

    const machine = machineDescription();
    const rows = routes.map((route) => {
      const peerRps = median(route.runs.peer.map((run) => run.rps));
      const meridianRps = median(route.runs.meridian.map((run) => run.rps));
      return { ...route, peerRps, meridianRps, ratio: meridianRps / peerRps, p99: median(route.runs.meridian.map((run) => run.p99)) };
    });
    const missed = rows.filter((row) => row.ratio < GOAL_RATIO);
    const lines = [
      "# Hot reads against a bare Hono route of the same body size",
      "",
      `Measured ${new Date().toISOString().slice(0, 10)} with \`node bench/hot-reads.mjs\`: ${CONNECTIONS} connections, ${DURATION_S} s per run ` +
        `after a ${WARMUP_S} s warm-up, ${ROUNDS} rounds with the peer and Meridian alternating (the order flips each round), medians. ` +
        `${machine.cores} cores (${machine.cpuModel}), Node ${machine.node}. Load average at the start ${loadAtStart}, at the end ${machine.loadAverage}. ` +
        "Meridian runs as `pnpm start` does (one process, default request caches); the peer is bench/peer-hono.mjs answering " +
        "`GET /bytes/<n>` with a JSON body of the same number of bytes. Every response was checked against the body fetched before the runs.",
      "",
      "| Route | Body | Peer req/s (runs) | Meridian req/s (runs) | × peer | Meridian p99 |",
      "|---|---:|---:|---:|---:|---:|",
      ...rows.map(
        (row) =>
          `| ${row.label} | ${row.bytes.toLocaleString("en-US")} B | ${Math.round(row.peerRps).toLocaleString("en-US")} ` +
          `(${row.runs.peer.map((run) => Math.round(run.rps)).join(", ")}) | ${Math.round(row.meridianRps).toLocaleString("en-US")} ` +
          `(${row.runs.meridian.map((run) => Math.round(run.rps)).join(", ")}) | ${row.ratio.toFixed(2)}× | ${row.p99} ms |`,
      ),
      "",
      `Goal (issue 26, point 5): at least ${GOAL_RATIO}× for every route: ` +
        `${missed.length === 0 ? "met" : `**not met** for ${missed.map((row) => row.label).join(", ")}`}.`,
    ];
    const markdown = `${lines.join("\n")}\n`;
    const file = await writeResult("hot-reads.md", markdown);
    process.stdout.write(`\n${markdown}\nwritten to ${path.relative(repoRoot, file)}\n`);
    if (missed.length > 0) {
      process.stderr.write(`\nFAILED: ${missed.map((row) => `${row.label} at ${row.ratio.toFixed(2)}×`).join(", ")}, below ${GOAL_RATIO}× the peer\n`);
      process.exitCode = 1;
    }
  } finally {
    if (meridian) await stopChild(meridian);
    if (peer) await stopChild(peer);
    await removeTempDirs();
  }
}

await main();
