#!/usr/bin/env node
// Health probe for containers (Docker HEALTHCHECK, compose healthchecks, Kubernetes exec probes).
// Plain ESM with no dependencies beyond the image's own node_modules, so it starts fast.
//
//   node infra/probe.mjs http <url>            exit 0 when <url> answers 2xx within 3 s
//   node infra/probe.mjs worker [--max-age 60] exit 0 when this host's worker wrote its heartbeat
//                                              to worker_heartbeats in the last <max-age> seconds
//   node infra/probe.mjs auto                  `worker` for a worker container, otherwise
//                                              `http http://127.0.0.1:$PORT/api/health/live`
//                                              (the role comes from /tmp/meridian-role, written by
//                                              infra/docker-entrypoint.sh, else MERIDIAN_ROLE)
//
// Worker processes have no HTTP listener. Each one upserts a row `<hostname>:<pid>:<random>`
// into worker_heartbeats every 10 s (apps/worker/src/start-worker.ts); in a container the
// hostname is the container's (Docker) or the pod's (Kubernetes), so a fresh row with this
// hostname means the worker's event loop is running and can reach PostgreSQL.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";

// This script runs outside the app and reads the container's environment directly.
// eslint-disable-next-line no-restricted-properties
const environment = process.env;
const TIMEOUT_MS = 3000;

function fail(message) {
  process.stderr.write(`probe: ${message}\n`);
  process.exit(1);
}

// A hard deadline for the whole probe: a peer that accepts the connection but never speaks
// the expected protocol must not leave a probe process spinning.
setTimeout(() => fail(`no answer within ${(TIMEOUT_MS * 2) / 1000} s`), TIMEOUT_MS * 2);

async function probeHttp(url) {
  if (!url) fail("usage: probe.mjs http <url>");
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), headers: { "user-agent": "meridian-probe" } });
    const body = await response.text();
    if (response.status < 200 || response.status > 299) fail(`${url} answered ${response.status}: ${body.slice(0, 500)}`);
  } catch (error) {
    fail(`${url}: ${error.message}`);
  }
}

async function probeWorker(maxAgeSeconds) {
  const url = environment.DATABASE_URL;
  if (!url) fail("DATABASE_URL is not set (the worker probe needs an external PostgreSQL)");
  // `postgres` is a dependency of packages/db, not of the repository root.
  const require = createRequire(new URL("../packages/db/package.json", import.meta.url));
  const postgres = require("postgres");
  const sql = postgres(url, {
    max: 1,
    connect_timeout: TIMEOUT_MS / 1000,
    idle_timeout: 1,
    onnotice: () => undefined,
    connection: { application_name: "meridian-probe", statement_timeout: TIMEOUT_MS },
  });
  try {
    const [row] = await sql`
      select count(*)::int as fresh
      from worker_heartbeats
      where split_part(worker_id, ':', 1) = ${os.hostname()}
        and last_seen_at > now() - make_interval(secs => ${maxAgeSeconds})`;
    if (!row || row.fresh < 1) fail(`no heartbeat from a worker on ${os.hostname()} in the last ${maxAgeSeconds} s`);
  } catch (error) {
    fail(`worker heartbeat query failed: ${error.message}`);
  } finally {
    await sql.end({ timeout: 1 }).catch(() => undefined);
  }
}

const [mode, ...rest] = process.argv.slice(2);
const maxAgeIndex = rest.indexOf("--max-age");
const maxAge = maxAgeIndex >= 0 ? Number(rest[maxAgeIndex + 1]) : 60;
if (!Number.isFinite(maxAge) || maxAge <= 0) fail("--max-age needs a number of seconds");

if (mode === "http") await probeHttp(rest[0]);
else if (mode === "worker") await probeWorker(maxAge);
else if (mode === "auto") {
  let role = environment.MERIDIAN_ROLE;
  try {
    role = readFileSync("/tmp/meridian-role", "utf8").trim() || role;
  } catch {
    // Not started through docker-entrypoint.sh.
  }
  if (role === "worker") await probeWorker(maxAge);
  else await probeHttp(`http://127.0.0.1:${environment.PORT || 3000}/api/health/live`);
} else fail("usage: probe.mjs http <url> | worker [--max-age <seconds>] | auto");
process.exit(0);
