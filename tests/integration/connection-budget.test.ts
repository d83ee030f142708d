import { randomBytes } from "node:crypto";
import { databaseConnectionBudget, loadEnv } from "@meridian/config";
import { ObservatorySimulator } from "@meridian/simulator";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, roomyLimits } from "../support/auth-suite";
import { openPluginSocket, type PluginSocket } from "../support/plugin-socket";
import { jsonApi } from "../support/json-api";
import { createTestDatabase } from "../support/test-database";
import { startTestServer, type TestServer } from "../support/test-server";
import { until } from "../support/until";
import { connectWebSocket } from "../support/ws-client";

/**
 * Issue 26, point 6: every process opens at most the PostgreSQL connections its settings promise
 * (databaseConnectionBudget, which `pnpm cluster` sums against max_connections), and a process
 * that cannot get one answers 503 with Retry-After instead of hanging.
 */

let superuser: postgres.Sql;
let databaseUrl: string;
beforeAll(async () => {
  databaseUrl = (await createTestDatabase()).url;
  superuser = postgres(databaseUrl, { max: 2, onnotice: () => undefined });
});
afterAll(async () => {
  await superuser?.end();
});

/** Connections to this test's database by the process of this name, now. */
async function connectionsOf(applicationName: string): Promise<number> {
  const [row] = await superuser<{ count: number }[]>`
    select count(*)::int as count from pg_stat_activity where datname = current_database() and application_name = ${applicationName}`;
  return row!.count;
}

describe("the connection budget", () => {
  it("holds a server that runs jobs to its pools under a burst of requests and jobs, and the pool is really used", async () => {
    const settings = { DATABASE_POOL_SIZE: "8", JOBS_DATABASE_POOL_SIZE: "4", WORKER_CONCURRENCY: "4", SMTP_POOL_SIZE: "4" };
    const server = await startTestServer({
      ...roomyLimits,
      ...settings,
      PASSWORD_RESETS_PER_IP_PER_HOUR: "1000",
      // Every request looks its token up: the pool is what they wait for.
      REQUEST_CACHE_TTL_MS: "0",
      DATABASE_URL: databaseUrl,
    });
    try {
      const name = server.server.runtime.applicationName;
      const budget = databaseConnectionBudget(server.env, "all");
      expect(budget).toEqual({ pool: 8, notifications: 1, jobs: 4, backupReaders: 4, total: 17 });
      const accounts = await Promise.all(Array.from({ length: 8 }, () => createAccount(server)));

      let most = 0;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          most = Math.max(most, await connectionsOf(name));
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      try {
        // Password-reset emails are jobs of the email runner; `me` and the resets use the shared pool.
        const burst = await Promise.all([
          ...Array.from({ length: 150 }, (_, index) => server.request("/api/v1/auth/me", { token: accounts[index % accounts.length]!.token })),
          ...accounts.flatMap((account) =>
            Array.from({ length: 3 }, () => server.request("/api/v1/auth/password-reset", { method: "POST", json: { email: account.email } })),
          ),
        ]);
        expect(burst.map((response) => response.status).filter((status) => status >= 300)).toEqual([]);
        await until("the reset emails to be sent", async () => {
          const [row] = await superuser<{ count: number }[]>`select count(*)::int as count from graphile_worker.jobs`;
          return row!.count === 0;
        });
      } finally {
        sampling = false;
        await sampler;
      }
      // More than one pool's worth was in use at once, and never more than the budget.
      expect(most).toBeGreaterThan(budget.pool);
      expect(most).toBeLessThanOrEqual(budget.total);
    } finally {
      await server.stop();
    }
  });

  it("adds up per process kind as infra/README and pnpm cluster say: two servers and two workers fit in 100 connections", () => {
    const defaults = loadEnv({});
    expect(databaseConnectionBudget(defaults, "server").total).toBe(11);
    // Processes that run backups (workers, all in one, the admin CLI) count a backup's four reader connections.
    expect(databaseConnectionBudget(defaults, "worker").total).toBe(19);
    expect(databaseConnectionBudget(defaults, "all").total).toBe(21);
    expect(databaseConnectionBudget(defaults, "admin").total).toBe(13);
    expect(2 * 11 + 2 * 19 + 13).toBeLessThanOrEqual(100 - 3);
    // A pool too small for a restore's connections beside its locks is refused at start, by name.
    expect(() => loadEnv({ DATABASE_POOL_SIZE: "4" })).toThrow(/DATABASE_POOL_SIZE/);
  });
});

describe("a process that cannot get a connection", () => {
  let server: TestServer;
  let role: string;
  let token: string;
  let plugin: PluginSocket;
  beforeAll(async () => {
    role = `limited_${randomBytes(4).toString("hex")}`;
    const password = randomBytes(12).toString("hex");
    // A member of the superuser role, so it may use everything, but not a superuser: the connection limit binds it.
    await superuser.unsafe(`create role ${role} login password '${password}' in role ${new URL(databaseUrl).username}`);
    const url = new URL(databaseUrl);
    url.username = role;
    url.password = password;
    server = await startTestServer({ MERIDIAN_ROLE: "server", REQUEST_CACHE_TTL_MS: "0", DATABASE_URL: url.toString() });
    token = (await createAccount(server)).token;
    const { must } = jsonApi(() => server);
    const observatory = (await must("/observatories", { method: "POST", token, json: { name: "Budgeted" } }, 201)) as { id: string };
    const key = (await must(`/observatories/${observatory.id}/api-keys`, { method: "POST", token, json: { name: "plugin" } }, 201)) as { key: string };
    plugin = await openPluginSocket(server.url, key.key);
    expect(await plugin.ask({ type: "hello", pluginVersion: "3.8.0.0" })).toMatchObject({ type: "ack" });
  });
  afterAll(async () => {
    plugin?.client.ws.close();
    await superuser.unsafe(`alter role ${role} connection limit -1`);
    await server?.stop();
  });

  it("answers 503 with Retry-After on REST and tRPC while PostgreSQL refuses it, and serves again once it accepts", async () => {
    expect((await server.request("/api/v1/auth/me", { token })).status).toBe(200);
    await superuser.unsafe(`alter role ${role} connection limit 0`);
    await superuser`select pg_terminate_backend(pid) from pg_stat_activity where usename = ${role}`;

    const refused = await server.request("/api/v1/auth/me", { token, signal: AbortSignal.timeout(30_000) });
    const problem = await expectProblem(refused, 503, "SERVICE_UNAVAILABLE");
    expect(problem.detail).toMatch(/database/i);
    expect(refused.headers.get("retry-after")).toBe("5");

    // Signed out, so the refusal comes from the procedure itself (signing in reads the accounts).
    const trpc = await server.request("/trpc/auth.login", {
      method: "POST",
      json: { email: "nobody@example.com", password: "not a password" },
      signal: AbortSignal.timeout(30_000),
    });
    expect(trpc.status).toBe(503);
    expect(trpc.headers.get("retry-after")).toBe("5");
    const body = (await trpc.json()) as { error: { data: { code: string; httpStatus: number } } };
    expect(body.error.data).toMatchObject({ code: "SERVICE_UNAVAILABLE", httpStatus: 503 });

    // A connected plugin's report is answered the same way, a refusal for now it sends again after
    // the same Retry-After, not INTERNAL.
    const report = await plugin.ask({ type: "config", systemInfo: { os: "linux" }, equipment: { mount: "A" } });
    expect(report).toMatchObject({ type: "error", code: "SERVICE_UNAVAILABLE", retryAfter: 5 });
    expect(report.message).toMatch(/database/i);

    await superuser.unsafe(`alter role ${role} connection limit -1`);
    await until("the server to serve again", async () => (await server.request("/api/v1/auth/me", { token })).status === 200);
    expect(await plugin.ask({ type: "config", systemInfo: { os: "linux" }, equipment: { mount: "A" } })).toMatchObject({ type: "ack" });
  });

  it("answers a WebSocket upgrade it cannot authenticate without PostgreSQL 503, not 401, and a plugin cut meanwhile comes back once it accepts", async () => {
    const { must } = jsonApi(() => server);
    const observatory = (await must("/observatories", { method: "POST", token, json: { name: "Cut off" } }, 201)) as { id: string };
    const { key } = (await must(`/observatories/${observatory.id}/api-keys`, { method: "POST", token, json: { name: "plugin" } }, 201)) as { key: string };
    const lines: string[] = [];
    const simulator = new ObservatorySimulator({ url: server.url, key, reconnect: true, log: (line) => lines.push(line) });
    try {
      await simulator.connect();
      await superuser.unsafe(`alter role ${role} connection limit 0`);
      await superuser`select pg_terminate_backend(pid) from pg_stat_activity where usename = ${role}`;

      const wsUrl = server.url.replace(/^http/, "ws");
      for (const [path, credential] of [
        ["/ws/observatory", key],
        ["/ws", token],
      ] as const) {
        const refused = await connectWebSocket(`${wsUrl}${path}`, { authorization: `Bearer ${credential}` });
        expect(refused, path).toMatchObject({ ok: false, status: 503, headers: { "retry-after": "5" } });
        expect(JSON.parse(refused.ok ? "" : refused.body)).toMatchObject({ code: "SERVICE_UNAVAILABLE" });
      }

      // A 401 would have told the plugin its key was gone, and it would never have tried again.
      const back = new Promise((resolve) => simulator.once("reconnected", resolve));
      simulator.dropOff();
      await until("a refused reconnection", async () => lines.includes("could not connect: connection refused: 503")).catch((error: Error) => {
        throw new Error(`${error.message}; the simulator said: ${lines.join(" | ")}`);
      });
      expect(simulator.reconnecting).toBe(true);
      await superuser.unsafe(`alter role ${role} connection limit -1`);
      await back;
      expect(await simulator.send({ type: "heartbeat" })).toMatchObject({ type: "ack" });
    } finally {
      await superuser.unsafe(`alter role ${role} connection limit -1`);
      await simulator.close();
    }
  });
});
