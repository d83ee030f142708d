import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { ObservatoryClient, type AssignedObservation } from "@meridian/observatory-client";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openWebSocket, type OpenClient } from "../support/ws-client";
import { until } from "../support/until";

/**
 * `pnpm cluster` (scripts/cluster.ts) as an operator runs it: nginx over two servers, two workers,
 * Debian's PostgreSQL and the S3 store. Requests are balanced (X-Served-By), both WebSocket paths
 * pass through nginx, an observation submitted through the balancer reaches the plugin and its
 * owner's socket across processes, and Ctrl-C stops everything and leaves nothing behind.
 */

const ROOT = path.resolve(import.meta.dirname, "../..");
let cluster: ChildProcess;
let output = "";
let address: string;
let folder: string;
const closers: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  cluster = spawn(process.execPath, ["--import", "tsx", "scripts/cluster.ts"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  cluster.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  cluster.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await until(
    "the cluster to print its address",
    async () => {
      if (cluster.exitCode !== null) throw new Error(`the cluster script ended (${cluster.exitCode}):\n${output}`);
      return /Meridian cluster: (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
    },
    { timeoutMs: 300_000, intervalMs: 200 },
  );
  address = /Meridian cluster: (http:\/\/127\.0\.0\.1:\d+)/.exec(output)![1]!;
  folder = /logs in (\S+);/.exec(output)![1]!;
}, 320_000);

afterAll(async () => {
  for (const close of closers) await close().catch(() => undefined);
  if (cluster && cluster.exitCode === null) {
    cluster.kill("SIGINT");
    await until("the cluster to stop", async () => cluster.exitCode !== null, { timeoutMs: 60_000 }).catch(() => cluster.kill("SIGKILL"));
  }
});

async function call<T>(pathname: string, init: { method?: string; token?: string; json?: unknown } = {}) {
  const response = await fetch(`${address}${pathname}`, {
    method: init.method ?? (init.json === undefined ? "GET" : "POST"),
    headers: { ...(init.token ? { authorization: `Bearer ${init.token}` } : {}), ...(init.json === undefined ? {} : { "content-type": "application/json" }) },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${pathname}: ${response.status} ${text}`);
  return { body: (text ? JSON.parse(text) : null) as T, servedBy: response.headers.get("x-served-by") };
}

describe("pnpm cluster", { timeout: 180_000 }, () => {
  it("balances requests over both servers, each named in X-Served-By", async () => {
    const servedBy = new Set<string | null>();
    for (let request = 0; request < 10; request += 1) servedBy.add((await call("/api/health/live")).servedBy);
    expect([...servedBy].sort()).toEqual(["server-1", "server-2"]);
    // Each check is time-boxed to a second, which one answer on a loaded machine can miss: wait for the state.
    const health = await until("health to be ok", async () => {
      const answer = await call<{ status: string; checks: { worker: { workers: number } } }>("/api/health").catch(() => undefined);
      return answer?.body.status === "ok" ? answer.body : undefined;
    });
    expect(health.checks.worker.workers).toBe(2);
  });

  it("carries both WebSocket paths: an observation submitted through the balancer reaches the plugin and its owner's page", async () => {
    const { token } = (
      await call<{ token: string }>("/api/v1/auth/signup", { json: { email: "cluster@example.com", password: "cluster password", name: "Cora" } })
    ).body;
    const observatory = (await call<{ id: string }>("/observatories", { token, json: { name: "Balanced dome" } })).body;
    const project = (await call<{ id: string }>("/projects", { token, json: { name: "Balanced survey" } })).body;
    const { key } = (await call<{ key: string }>(`/observatories/${observatory.id}/api-keys`, { token, json: { name: "plugin" } })).body;

    const page: OpenClient = await openWebSocket(`${address.replace("http", "ws")}/ws`, { authorization: `Bearer ${token}` });
    closers.push(() => page.close());
    const plugin = new ObservatoryClient({ url: address, key, pluginVersion: "4.0.0.0", reconnect: false });
    closers.push(() => plugin.close());
    const assigned = new Promise<AssignedObservation>((resolve) => plugin.once("assign", resolve));
    await plugin.connect();

    const observation = (
      await call<{ id: string }>("/observations", {
        token,
        json: {
          name: "Vega",
          projectId: project.id,
          observatoryId: observatory.id,
          targets: [{ name: "Vega", ra: 279.23, dec: 38.78, exposures: [{ filter: "L", exposureSeconds: 1, count: 1, binning: 1 }] }],
        },
      })
    ).body;
    expect((await assigned).id).toBe(observation.id);
    await plugin.reportStatus(observation.id, "in_progress");
    await page.waitFor(
      (message) =>
        message.type === "observation.status_changed" &&
        (message.data as { id: string; status: string }).id === observation.id &&
        (message.data as { status: string }).status === "in_progress",
      "the owner's page to hear the observation move",
    );
  });

  it("keeps every process within its PostgreSQL connection budget, the four together within max_connections", async () => {
    const info = JSON.parse(await fs.readFile(path.join(folder, "cluster.json"), "utf8")) as {
      env: { DATABASE_URL: string };
      connectionBudget: { server: number; worker: number; total: number; maxConnections: number };
    };
    expect(output).toContain(`PostgreSQL connections at most ${info.connectionBudget.total} of ${info.connectionBudget.maxConnections}`);
    const sql = postgres(info.env.DATABASE_URL, { max: 1, onnotice: () => undefined });
    try {
      const rows = await sql<Array<{ name: string; connections: number }>>`
        select application_name as name, count(*)::int as connections from pg_stat_activity
        where application_name like 'meridian-%' group by application_name`;
      const of = (kind: string) => rows.filter((row) => row.name.startsWith(`meridian-${kind}:`));
      expect(of("server")).toHaveLength(2);
      expect(of("worker")).toHaveLength(2);
      for (const row of of("server")) expect(row.connections).toBeLessThanOrEqual(info.connectionBudget.server);
      for (const row of of("worker")) expect(row.connections).toBeLessThanOrEqual(info.connectionBudget.worker);
      const [max] = await sql<Array<{ max_connections: string }>>`show max_connections`;
      expect(Number(max!.max_connections)).toBe(info.connectionBudget.maxConnections);
    } finally {
      await sql.end();
    }
  });

  it("refuses, before starting anything, a cluster whose processes could open more connections than PostgreSQL allows", async () => {
    const refused = spawn(process.execPath, ["--import", "tsx", "scripts/cluster.ts"], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_POOL_SIZE: "40" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let said = "";
    refused.stdout!.on("data", (chunk: Buffer) => (said += chunk.toString()));
    refused.stderr!.on("data", (chunk: Buffer) => (said += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => refused.once("exit", resolve));
    expect(code).toBe(2);
    expect(said).toMatch(/the cluster was not started: 2 servers × 41 and 2 workers × 19 PostgreSQL connections .* exceed max_connections 100/);
    expect(said).not.toMatch(/Meridian cluster:|\n\s+at /);
  });

  it("stops everything on Ctrl-C and removes its folder", async () => {
    for (const close of closers.splice(0)) await close();
    expect(existsSync(folder)).toBe(true);
    cluster.kill("SIGINT");
    await until("the cluster script to end", async () => (cluster.exitCode !== null ? true : undefined), { timeoutMs: 90_000 });
    expect(cluster.exitCode).toBe(0);
    expect(existsSync(folder)).toBe(false);
    const stillUp = await fetch(`${address}/api/health`).then(
      () => true,
      () => false,
    );
    expect(stillUp).toBe(false);
  });
});
