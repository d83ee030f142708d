#!/usr/bin/env node
// Throughput and latency of `GET /api/v1/user/motd/pending` (the check every signed-in page makes
// for announcements the user must acknowledge) against a bare Hono route, in one run.
//
//   node bench/motd-pending.mjs [--duration 10] [--connections 100] [--warmup 3]
//   node bench/motd-pending.mjs --profile [--duration 5] [--path /api/v1/auth/me]
//                                                              CPU profile of the server instead
//
// Issue 4's goal: at least 0.25× the bare route's requests/s, and p99 under 25 ms, at 100
// connections.
//
// Starts two child processes from the repo root, like bench/http-overhead.mjs:
//   peer      bench/peer-hono.mjs: Hono + @hono/node-server, `GET /hello` returning small JSON
//   meridian  node --import tsx apps/server/src/main.ts, MERIDIAN_ROLE=all, a fresh temporary
//             DATA_DIR (embedded PostgreSQL and S3), free ports, LOG_LEVEL=warn, and
//             ADMIN_EMAIL / ADMIN_PASSWORD so that the benchmark can log in as server admin
// then signs up one user and, as the admin, creates five system announcements for all users
// (POST /api/v1/system/motd, targets {users: {all: true}}): the user acknowledges one, the
// admin cancels one, three stay pending (one critical, one warning, one info). Each target is
// driven with autocannon (programmatic API) for an unrecorded warm-up, then `--duration`
// seconds with `--connections` connections:
//   (a) peer GET /hello
//   (b) Meridian GET /api/v1/auth/me (bearer)            authentication alone, for reference
//   (c) Meridian GET /api/v1/user/motd/pending (bearer)  authentication + the pending query
// Every response must be 200 with exactly the body fetched before the run (autocannon's
// expectBody: for (c) the three pending announcements); any non-2xx, error, timeout or
// mismatch fails the benchmark after the table is printed. RSS as in http-overhead.mjs.
// Results: bench/results/motd-pending.md.
//
// With --profile, only Meridian is started, with `node --cpu-prof`; after
// the warm-up, target (c) is driven for `--duration` seconds, the server is stopped (the
// profile is written on exit), and the samples taken during the measured window are summed
// per function (self and inclusive time) and per module. The summary is printed and written,
// with the raw .cpuprofile, to a directory under the system's temporary directory; the results
// file is not touched.
import fs from "node:fs/promises";
import { SourceMap } from "node:module";
import os from "node:os";
import path from "node:path";
import { ADMIN, call, seedPendingAnnouncements as seed } from "./seed-announcements.mjs";
import {
  cleanEnv,
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
} from "./lib.mjs";

const PROFILE = process.argv.includes("--profile");
/** `--path /api/v1/auth/me` profiles another signed-in GET of the seeded user instead. */
const PROFILED_PATH = process.argv.includes("--path") ? process.argv[process.argv.indexOf("--path") + 1] : "/api/v1/user/motd/pending";
const DURATION_S = numberOption("duration", PROFILE ? 5 : 10);
const CONNECTIONS = numberOption("connections", 100);
const WARMUP_S = numberOption("warmup", 3);
const IDLE_SETTLE_MS = 3000;
const GOAL_RATIO = 0.25;
const GOAL_P99_MS = 25;

installCleanupHooks();
const loadAtStart = loadAverage();

// ---------------------------------------------------------------------------------------------
// CPU profile summary

function moduleOf(url, functionName) {
  if (!url) return functionName.startsWith("(") ? functionName : "(V8 builtins / native)";
  if (url.startsWith("node:")) return url;
  const pnpm = url.match(/node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)\//) ?? url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
  if (pnpm) return pnpm[1];
  const local = url.startsWith("file://") ? url.slice("file://".length) : url;
  return path.relative(repoRoot, local);
}

const isOwnCode = (module) => /^(packages|apps)\//.test(module);

/**
 * tsx runs our TypeScript as esbuild output with the whitespace removed (one line per file), so
 * the profile's positions in our files mean nothing to a reader. tsx keeps each transform, with
 * its source map, in `<tmpdir>/tsx-<uid>/`; the map's `sources` name whichever checkout first
 * produced it, so an entry is matched to the current file by content: identifiers at mapped
 * positions must be the same in the generated code and in the file on disk.
 */
async function ownSourceMapper() {
  const cacheDir = path.join(os.tmpdir(), `tsx-${os.userInfo().uid}`);
  const candidates = new Map();
  for (const name of await fs.readdir(cacheDir).catch(() => [])) {
    try {
      const entry = JSON.parse(await fs.readFile(path.join(cacheDir, name), "utf8"));
      const source = entry?.map?.sources?.[0];
      const relative = source?.match(/\/((?:packages|apps)\/.+)$/)?.[1];
      if (!relative || typeof entry.code !== "string") continue;
      if (!candidates.has(relative)) candidates.set(relative, []);
      candidates.get(relative).push(entry);
    } catch {
      // Not a transform entry.
    }
  }
  const chosen = new Map();
  const mapperFor = async (relative) => {
    if (chosen.has(relative)) return chosen.get(relative);
    let found = null;
    const original = await fs.readFile(path.join(repoRoot, relative), "utf8").catch(() => undefined);
    if (original !== undefined) {
      const originalLines = original.split("\n");
      let best = 0;
      for (const entry of candidates.get(relative) ?? []) {
        const map = new SourceMap(entry.map);
        let matches = 0;
        let mismatches = 0;
        entry.code.split("\n").forEach((line, lineIndex) => {
          for (const match of line.matchAll(/[A-Za-z_$][\w$]{3,}/g)) {
            // Tokens esbuild writes differently: `__name(fn, "fn")` helper calls map to the
            // function they name, `void 0` to `undefined`.
            if (match[0] === "__name" || match[0] === "void") continue;
            const mapped = map.findEntry(lineIndex, match.index);
            if (!mapped || mapped.generatedLine !== lineIndex || mapped.generatedColumn !== match.index || mapped.originalLine === undefined) continue;
            const at = originalLines[mapped.originalLine]?.slice(mapped.originalColumn) ?? "";
            // esbuild also moves `export` after the keyword it precedes and renames shadowed
            // identifiers (`users` → `users2`).
            const token = match[0];
            if (at.startsWith(token) || at.startsWith(`export ${token}`) || (/\d$/.test(token) && at.startsWith(token.replace(/\d+$/, "")))) matches += 1;
            else mismatches += 1;
          }
        });
        // Older versions of the file are in the cache too: the closest fit wins, and only a close one.
        const score = matches - 20 * mismatches;
        if (matches >= 5 && mismatches <= matches * 0.02 && score > best) {
          best = score;
          found = map;
        }
      }
    }
    chosen.set(relative, found);
    return found;
  };
  return async (module, lineNumber, columnNumber) => {
    const map = await mapperFor(module);
    const mapped = map?.findEntry(lineNumber, columnNumber);
    return mapped && mapped.originalLine !== undefined ? mapped.originalLine + 1 : undefined;
  };
}

/** Self and inclusive ms per function and self ms per module, for samples within [fromUs, toUs]. */
async function summarizeProfile(profile, fromUs, toUs) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const mapLine = await ownSourceMapper();
  const keys = new Map();
  for (const node of profile.nodes) {
    const { functionName, url, lineNumber, columnNumber } = node.callFrame;
    const module = moduleOf(url, functionName);
    let where = "";
    if (url && isOwnCode(module)) {
      const line = await mapLine(module, lineNumber, columnNumber);
      where = line ? `${module}:${line}` : `${module} (generated column ${columnNumber})`;
    } else if (url) {
      where = `${module}:${lineNumber + 1}`;
    }
    keys.set(node.id, { key: `${functionName || "(anonymous)"}${where ? ` ${where}` : ""}`, module });
  }

  let inWindow = fromUs !== undefined && toUs !== undefined;
  // Fall back to the whole profile when the window does not overlap it (clocks not comparable).
  if (inWindow && (toUs < profile.startTime || fromUs > profile.endTime)) inWindow = false;
  const self = new Map();
  const inclusive = new Map();
  const modules = new Map();
  const add = (map, key, ms) => map.set(key, (map.get(key) ?? 0) + ms);
  let total = 0;
  let timestamp = profile.startTime;
  for (let index = 0; index < profile.samples.length; index += 1) {
    const delta = profile.timeDeltas[index] ?? 0;
    timestamp += delta;
    if (inWindow && (timestamp < fromUs || timestamp > toUs)) continue;
    const ms = delta / 1000;
    const node = byId.get(profile.samples[index]);
    if (!node) continue;
    total += ms;
    const { key, module } = keys.get(node.id);
    add(self, key, ms);
    add(modules, module, ms);
    const seen = new Set();
    for (let id = node.id; id !== undefined; id = parent.get(id)) {
      const frame = keys.get(id);
      if (seen.has(frame.key)) continue;
      seen.add(frame.key);
      inclusive.set(frame, (inclusive.get(frame) ?? 0) + ms);
    }
  }
  // Inclusive time is keyed by frame object above only to keep the module at hand; fold by key.
  const inclusiveByKey = new Map();
  for (const [frame, ms] of inclusive)
    if (isOwnCode(frame.module) || /^(hono|@hono\/|zod|drizzle-orm|postgres$)/.test(frame.module)) add(inclusiveByKey, frame.key, ms);
  const top = (map, count) => [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, count);
  return { total, inWindow, self: top(self, 30), modules: top(modules, 20), inclusive: top(inclusiveByKey, 40) };
}

function profileMarkdown(summary, result, cacheTtlMs) {
  const pct = (ms) => `${((ms / summary.total) * 100).toFixed(1)} %`;
  const table = (title, rows) => [
    `| ${title} | ms | share |`,
    "|---|---:|---:|",
    ...rows.map(([key, ms]) => `| \`${key}\` | ${ms.toFixed(0)} | ${pct(ms)} |`),
    "",
  ];
  return [
    `# CPU profile of the Meridian server under \`GET ${PROFILED_PATH}\``,
    "",
    `${cacheTtlMs === undefined ? "Default configuration (request caches on)" : `REQUEST_CACHE_TTL_MS=${cacheTtlMs}`}; ` +
      `${CONNECTIONS} connections, ${DURATION_S} s, ${Math.round(result.requests.average).toLocaleString("en-US")} ` +
      `req/s (p99 ${result.latency.p99} ms) while profiled; ${summary.total.toFixed(0)} ` +
      `ms of samples ${summary.inWindow ? "inside the measured window" : "(whole profile: the window could not be matched)"}. ` +
      `Load average at the end: ${loadAverage()}.`,
    "",
    ...table("Self time, by module", summary.modules),
    ...table("Self time, by function", summary.self),
    ...table("Inclusive time (our code, Hono, zod, drizzle, postgres)", summary.inclusive),
  ].join("\n");
}

// ---------------------------------------------------------------------------------------------

/** Starts Meridian (optionally under `node --cpu-prof`), waits for health, seeds the announcements. */
async function startSeededMeridian(label, { cacheTtlMs, profileDir } = {}) {
  const dataDir = await makeTempDir(label);
  const [port, postgresPort] = [await freePort(), await freePort()];
  const extraEnv = {
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    ...(cacheTtlMs === undefined ? {} : { REQUEST_CACHE_TTL_MS: String(cacheTtlMs) }),
  };
  let meridian;
  if (profileDir) {
    // As spawnMeridian does, plus the profiler flags (Node 20 refuses them in NODE_OPTIONS).
    const env = cleanEnv({
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      EMBEDDED_POSTGRES_PORT: String(postgresPort),
      MERIDIAN_ROLE: "all",
      LOG_LEVEL: "warn",
      NODE_ENV: "production",
      ...extraEnv,
    });
    const args = ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, "--cpu-prof-interval=500", "--import", "tsx", "apps/server/src/main.ts"];
    meridian = spawnTracked("meridian", process.execPath, args, { env, dataDir });
    meridian.baseUrl = `http://127.0.0.1:${port}`;
  } else {
    meridian = spawnMeridian({ dataDir, port, postgresPort, extraEnv });
  }
  meridian.dataDir = dataDir;
  const readyMs = await waitForStatus(meridian, `${meridian.baseUrl}/api/health`);
  process.stdout.write(`Meridian (${label}) on ${meridian.baseUrl}, ready after ${(readyMs / 1000).toFixed(1)} s, DATA_DIR ${dataDir}\n`);
  const seeded = await seed(meridian.baseUrl);
  return { meridian, ...seeded };
}

async function stopMeridian(meridian) {
  if (!meridian) return;
  const exit = await stopChild(meridian);
  if (exit && exit.code !== 0 && exit.signal !== "SIGTERM") process.stderr.write(`[bench] Meridian exited with ${JSON.stringify(exit)}\n${meridian.output}\n`);
}

async function profileRun() {
  const outDir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-motd-profile-"));
  const cacheTtlMs = process.argv.includes("--cache-ttl-ms") ? numberOption("cache-ttl-ms", 5000) : undefined;
  let meridian;
  try {
    const started = await startSeededMeridian("motd-profile", { cacheTtlMs, profileDir: outDir });
    meridian = started.meridian;
    const url = `${meridian.baseUrl}${PROFILED_PATH}`;
    const headers = { authorization: `Bearer ${started.userToken}` };
    const expectBody = (await call(meridian.baseUrl, "GET", PROFILED_PATH, { token: started.userToken, expect: 200 })).text;
    if (WARMUP_S > 0) await runAutocannon({ url, headers, connections: CONNECTIONS, duration: WARMUP_S, expectBody });
    const fromUs = Number(process.hrtime.bigint() / 1000n);
    const result = await runAutocannon({ url, headers, connections: CONNECTIONS, duration: DURATION_S, expectBody });
    const toUs = Number(process.hrtime.bigint() / 1000n);
    const failures = result.non2xx + result.errors + result.timeouts + result.mismatches;
    // Let requests still queued in the server finish before SIGTERM closes its database pool.
    await sleep(2000);
    await stopMeridian(meridian);
    const files = (await fs.readdir(outDir)).filter((name) => name.endsWith(".cpuprofile"));
    if (files.length === 0) throw new Error(`no .cpuprofile written to ${outDir}`);
    // The server's own profile is the largest (child node processes, if any, write their own).
    const sized = await Promise.all(files.map(async (name) => ({ name, size: (await fs.stat(path.join(outDir, name))).size })));
    const file = path.join(outDir, sized.sort((a, b) => b.size - a.size)[0].name);
    const summary = await summarizeProfile(JSON.parse(await fs.readFile(file, "utf8")), fromUs, toUs);
    const markdown = profileMarkdown(summary, result, cacheTtlMs);
    await fs.writeFile(path.join(outDir, "summary.md"), `${markdown}\n`);
    process.stdout.write(`${markdown}\nprofile: ${file}\nsummary: ${path.join(outDir, "summary.md")}\n`);
    if (failures > 0)
      throw new Error(
        `${failures} failed responses while profiling (non-2xx ${result.non2xx}, errors ${result.errors}, ` +
          `timeouts ${result.timeouts}, mismatches ${result.mismatches})`,
      );
  } finally {
    await stopMeridian(meridian);
    await removeTempDirs();
  }
}

async function measure(target) {
  if (WARMUP_S > 0)
    await runAutocannon({ url: target.url, headers: target.headers, connections: CONNECTIONS, duration: WARMUP_S, expectBody: target.expectBody });
  const { pid, dataDir } = target.process;
  const cpuBefore = cpuSeconds(pid);
  const pgBefore = dataDir ? postgresCpuSeconds(dataDir) : 0;
  const result = await runAutocannon({
    url: target.url,
    headers: target.headers,
    connections: CONNECTIONS,
    duration: DURATION_S,
    expectBody: target.expectBody,
  });
  const serverCpu = cpuSeconds(pid) - cpuBefore;
  const postgresCpu = dataDir ? postgresCpuSeconds(dataDir) - pgBefore : 0;
  const row = {
    key: target.key,
    label: target.label,
    bytes: target.bytes,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failed: result.non2xx + result.errors + result.timeouts + result.mismatches,
    detail: `non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts}, body mismatches ${result.mismatches}`,
    serverCpu,
    postgresCpu,
    perCpuSecond: result["2xx"] / Math.max(serverCpu + postgresCpu, 0.001),
  };
  process.stdout.write(
    `${row.label.padEnd(78)} ${row.rps.toFixed(0).padStart(7)} req/s  p50 ${String(row.p50).padStart(4)} ` +
      `ms  p99 ${String(row.p99).padStart(4)} ms  failed ${row.failed}  server CPU ${row.serverCpu.toFixed(1)} ` +
      `s  PostgreSQL CPU ${row.postgresCpu.toFixed(1)} s\n`,
  );
  await sleep(1000);
  return row;
}

/** Fetches each target once: it must answer 200; its body is what every response must equal. */
async function prepare(targets) {
  for (const target of targets) {
    const response = await fetch(target.url, { headers: target.headers });
    target.expectBody = await response.text();
    if (response.status !== 200) throw new Error(`${target.url} answered ${response.status}: ${target.expectBody}`);
    target.bytes = Buffer.byteLength(target.expectBody);
  }
  return targets;
}

const memory = (handle) => ({ rss: readRss(handle.pid), peak: readPeakRss(handle.pid), postgres: handle.dataDir ? postgresPss(handle.dataDir) : undefined });

async function benchmarkRun() {
  let peer;
  let meridian;
  try {
    const peerPort = await freePort();
    peer = spawnTracked("peer", process.execPath, [path.join("bench", "peer-hono.mjs"), String(peerPort)], { env: cleanEnv({ NODE_ENV: "production" }) });
    const peerUrl = `http://127.0.0.1:${peerPort}`;
    await waitForStatus(peer, `${peerUrl}/hello`, { timeoutMs: 30_000 });

    // Phase 1: the default configuration (request caches on, REQUEST_CACHE_TTL_MS 5 s).
    const cached = await startSeededMeridian("motd");
    meridian = cached.meridian;
    const auth = { authorization: `Bearer ${cached.userToken}` };
    const phase1 = await prepare([
      { key: "peer", label: "(a) peer: bare Hono `GET /hello`", process: peer, url: `${peerUrl}/hello` },
      {
        key: "me",
        label: "(b) Meridian `GET /api/v1/auth/me` (bearer), for reference",
        process: meridian,
        url: `${meridian.baseUrl}/api/v1/auth/me`,
        headers: auth,
      },
      {
        key: "pending",
        label: `(c) Meridian \`GET /api/v1/user/motd/pending\` (bearer, ${cached.pendingCount} pending)`,
        process: meridian,
        url: `${meridian.baseUrl}/api/v1/user/motd/pending`,
        headers: auth,
      },
    ]);
    await sleep(IDLE_SETTLE_MS);
    const idle = { meridian: memory(meridian), peer: memory(peer) };
    process.stdout.write(
      `idle RSS: Meridian ${mib(idle.meridian.rss)}, peer ${mib(idle.peer.rss)}, embedded PostgreSQL PSS ${mib(idle.meridian.postgres)}\n\n`,
    );
    const rows = [];
    for (const target of phase1) rows.push(await measure(target));
    const after = { meridian: memory(meridian), peer: memory(peer) };
    await stopMeridian(meridian);
    meridian = undefined;

    // Phase 2: caches off (REQUEST_CACHE_TTL_MS=0): every request looks the token up and runs the query.
    const uncached = await startSeededMeridian("motd-nocache", { cacheTtlMs: 0 });
    meridian = uncached.meridian;
    const auth2 = { authorization: `Bearer ${uncached.userToken}` };
    const phase2 = await prepare([
      {
        key: "me-nocache",
        label: "(d) (b) with `REQUEST_CACHE_TTL_MS=0`: token looked up every time",
        process: meridian,
        url: `${meridian.baseUrl}/api/v1/auth/me`,
        headers: auth2,
      },
      {
        key: "pending-nocache",
        label: "(e) (c) with `REQUEST_CACHE_TTL_MS=0`: token lookup and pending query every time",
        process: meridian,
        url: `${meridian.baseUrl}/api/v1/user/motd/pending`,
        headers: auth2,
      },
    ]);
    await sleep(IDLE_SETTLE_MS);
    const idleUncached = memory(meridian);
    for (const target of phase2) rows.push(await measure(target));
    const afterUncached = memory(meridian);

    const peerRps = rows[0].rps;
    const goal = (row) => ({ ratio: row.rps / peerRps, ratioMet: row.rps / peerRps >= GOAL_RATIO, p99Met: row.p99 < GOAL_P99_MS });
    const pending = goal(rows.find((row) => row.key === "pending"));
    const pendingNoCache = goal(rows.find((row) => row.key === "pending-nocache"));
    const verdict = (met) => (met ? "met" : "not met");
    const machine = machineDescription();
    const lines = [
      "# Pending announcements (`GET /api/v1/user/motd/pending`)",
      "",
      `Measured ${new Date().toISOString().slice(0, 10)} with \`node bench/motd-pending.mjs\` ` +
        `(${CONNECTIONS} connections, ${DURATION_S} s per target after a ${WARMUP_S} s warm-up) ` +
        `on ${machine.cores} cores (${machine.cpuModel}), ${machine.memory} RAM, Node ${machine.node}, ` +
        `${machine.platform}. Load average (1 / 5 / 15 min) at the start: ${loadAtStart}, ` +
        `at the end: ${machine.loadAverage}. autocannon, the servers and the embedded PostgreSQL ` +
        `share these cores with each other and with other work on the machine, so the absolute ` +
        `numbers are noisy; compare the rows with each other.`,
      "",
      `The user has ${cached.pendingCount} pending system announcements (critical, warning, ` +
        `info), one acknowledged and one cancelled; one token drives all ${CONNECTIONS} connections. ` +
        `Rows (a) to (c) run against Meridian in its default configuration, where authentication ` +
        `and the pending list are served from per-process caches (REQUEST_CACHE_TTL_MS 5 ` +
        `s, dropped on any change), so nearly every request of one user is a cache hit; rows ` +
        `(d) and (e) against a second Meridian, started after the first stopped, with the ` +
        `caches off: the cost of a miss, which is what the first request after a change or ` +
        `of a new session pays. Every response was checked: 200 with exactly the body fetched ` +
        `before the run.`,
      "",
      "| Target | Body | Requests/s | × peer | p50 | p99 | Failed | Server CPU | PostgreSQL CPU | 2xx per CPU-second |",
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
      ...rows.map(
        (row) =>
          `| ${row.label} | ${row.bytes.toLocaleString("en-US")} B | ${Math.round(row.rps).toLocaleString("en-US")} ` +
          `| ${(row.rps / peerRps).toFixed(2)}× | ${row.p50} ms | ${row.p99} ms | ${row.failed} ` +
          `| ${row.serverCpu.toFixed(1)} s | ${row.key === "peer" ? "–" : `${row.postgresCpu.toFixed(1)} s`} ` +
          `| ${Math.round(row.perCpuSecond).toLocaleString("en-US")} |`,
      ),
      "",
      `Goal (issue 4): at least ${GOAL_RATIO}× the peer's requests/s and p99 under ${GOAL_P99_MS} ` +
        `ms. Default configuration (c): ${pending.ratio.toFixed(2)}× (${verdict(pending.ratioMet)}), ` +
        `p99 ${rows.find((row) => row.key === "pending").p99} ms (${verdict(pending.p99Met)}). ` +
        `Caches off (e): ${pendingNoCache.ratio.toFixed(2)}× (${verdict(pendingNoCache.ratioMet)}), ` +
        `p99 ${rows.find((row) => row.key === "pending-nocache").p99} ms (${verdict(pendingNoCache.p99Met)}).`,
      "",
      "| Process | RSS idle (before load) | RSS after load | Peak RSS (VmHWM) |",
      "|---|---:|---:|---:|",
      `| Meridian server (node, MERIDIAN_ROLE=all), default configuration | ${mib(idle.meridian.rss)} ` +
        `| ${mib(after.meridian.rss)} | ${mib(after.meridian.peak)} |`,
      `| Meridian server, REQUEST_CACHE_TTL_MS=0 | ${mib(idleUncached.rss)} | ${mib(afterUncached.rss)} | ${mib(afterUncached.peak)} |`,
      `| Peer (bare Hono) | ${mib(idle.peer.rss)} | ${mib(after.peer.rss)} | ${mib(after.peer.peak)} |`,
      `| Embedded PostgreSQL (PSS, postmaster + backends), default configuration | ${mib(idle.meridian.postgres)} | ${mib(after.meridian.postgres)} | – |`,
      "",
      "Failed: non-2xx responses, errors, timeouts and bodies that differ from the expected one. " +
        "Server CPU: user + system CPU seconds of the server process during the measured run (from " +
        "/proc/<pid>/stat); PostgreSQL CPU: the same for the embedded postmaster and its backends. " +
        "2xx per CPU-second divides the successful responses by both.",
    ];
    const markdown = `${lines.join("\n")}\n`;
    const failedRows = rows.filter((row) => row.failed > 0);
    if (failedRows.length > 0) {
      // Never write a results file from a run whose responses were wrong.
      process.stdout.write(`\n${markdown}\n`);
      throw new Error(`failed responses: ${failedRows.map((row) => `${row.label}: ${row.detail}`).join("; ")}`);
    }
    const file = await writeResult("motd-pending.md", markdown);
    process.stdout.write(`\n${markdown}\nwritten to ${path.relative(repoRoot, file)}\n`);
  } finally {
    await stopMeridian(meridian);
    if (peer) await stopChild(peer);
    await removeTempDirs();
  }
}

await (PROFILE ? profileRun() : benchmarkRun());
