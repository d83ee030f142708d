import { dispatchObservatory } from "@meridian/domain/observations";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { openPluginSocket, type PluginSocket } from "../support/plugin-socket";
import type { TestServer } from "../support/test-server";
import { observingNetwork } from "../support/observing-network";
import { until } from "../support/until";

const ADMIN = { email: "monitoring-cadence-admin@example.com", password: "monitoring cadence admin password" };
const MINUTE = 60_000;
let server: TestServer;
let owner: Account;
let realNow: () => Date;
const sockets: PluginSocket[] = [];
beforeAll(async () => {
  // The worker runs in the server process: moves queue dispatch jobs, which assign.
  let adminToken: string;
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all" }));
  realNow = server.server.runtime.deps.now;
  owner = await createAccount(server);
  // The clock moves by half an hour below: a plugin silent that long must not be taken for gone by the minute's sweep.
  await must("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { heartbeatTimeoutSeconds: 3600 } }, 200);
});
afterEach(() => {
  server.server.runtime.deps.now = realNow;
});
afterAll(async () => {
  for (const socket of sockets) await socket.client.close().catch(() => undefined);
  await server?.stop();
});
const { must, call } = jsonApi(() => server);

/** Moves the server's clock (HTTP, sockets and its worker) to `offset` ms from the real time; it keeps running from there. */
const moveClock = (offset: number) => {
  server.server.runtime.deps.now = () => new Date(Date.now() + offset);
};

const target = { name: "Algol", ra: 47.0422, dec: 40.9556, exposures: [{ filter: "V", exposureSeconds: 10, count: 1, binning: 1 }] };
interface Observation {
  id: string;
  status: string;
  type: string;
  monitoring: { intervalMinutes: number; until: string | null; maxRuns: number | null } | null;
  monitoringRuns: { count: number; lastEndedAt: string } | null;
}

/** An observatory without a location (no darkness rule), a project, and a plugin connected with the observatory's key. */
async function network() {
  const { observatory, project, key } = await observingNetwork(must, owner);
  const submit = (fields: Record<string, unknown>) =>
    call("/observations", {
      method: "POST",
      token: owner.token,
      json: { name: "Algol minima", projectId: project.id, observatoryId: observatory.id, targets: [target], ...fields },
    });
  const connect = async () => {
    const plugin = await openPluginSocket(server.url, key.key);
    sockets.push(plugin);
    expect(await plugin.ask({ type: "hello", pluginVersion: "3.8.0.0" })).toMatchObject({ type: "ack" });
    return plugin;
  };
  return { observatory, submit, connect };
}

/**
 * Whether the plugin has been sent the observation's run after `runsEnded` earlier runs. Runs, not
 * messages: a run's `assign` may come twice, from the dispatch a hello queued and from the hello's own
 * repeat of unstarted assignments when that dispatch commits first (a plugin ignores the repeat).
 */
const assigned = (plugin: PluginSocket, id: string, runsEnded: number) =>
  plugin
    .received()
    .some(
      (message) =>
        message.type === "assign" &&
        message.observation.id === id &&
        ((message.observation as unknown as Observation).monitoringRuns?.count ?? 0) === runsEnded,
    );
const read = async (id: string) => (await must(`/observations/${id}`, { token: owner.token }, 200)) as Observation;

/** The plugin takes the observation through a run that ends in `end`. */
async function run(plugin: PluginSocket, id: string, end: "completed" | "failed") {
  for (const status of ["in_progress", "acquisition_complete", end] as const) {
    if (status === "acquisition_complete" && end === "failed") continue;
    expect(await plugin.ask({ type: "observation_status", observationId: id, status })).toMatchObject({ type: "ack" });
  }
}

describe("a monitoring cadence", () => {
  it("is taken and read back with a monitoring observation, and refused for any other type", async () => {
    const { submit } = await network();
    const created = await submit({ type: "monitoring", monitoring: { intervalMinutes: 90 } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      type: "monitoring",
      isMonitoring: true,
      monitoring: { intervalMinutes: 90, until: null, maxRuns: null },
      monitoringRuns: null,
    });
    const plain = await submit({ type: "monitoring" });
    expect(plain.body).toMatchObject({ monitoring: null });

    await expectProblem(
      await server.request("/observations", { method: "POST", json: { type: "monitoring", monitoring: { intervalMinutes: 0 } } }),
      401,
      "UNAUTHENTICATED",
    );
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ monitoring: { intervalMinutes: 60 } }, "monitoring", "Monitoring is only for a monitoring observation (type monitoring)."],
      [{ type: "fixed_time", fixedTimeStart: new Date(Date.now() + MINUTE).toISOString(), monitoring: { intervalMinutes: 60 } }, "monitoring", ""],
      [{ type: "monitoring", monitoring: { intervalMinutes: 0 } }, "monitoring.intervalMinutes", "Interval minutes must be at least 1."],
      [{ type: "monitoring", monitoring: { intervalMinutes: 10, maxRuns: 0 } }, "monitoring.maxRuns", "Max runs must be at least 1."],
      [{ type: "monitoring", monitoring: { intervalMinutes: 10, every: "day" } }, "monitoring.every", ""],
      [{ type: "monitoring", monitoring: { intervalMinutes: 10, until: new Date(Date.now() - MINUTE).toISOString() } }, "monitoring.until", ""],
    ];
    for (const [fields, path, message] of cases) {
      const answer = await submit(fields);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ code: "VALIDATION_FAILED" });
      const error = (answer.body as { errors: Array<{ path: string; message: string }> }).errors.find((entry) => entry.path === path);
      expect(error, JSON.stringify(answer.body)).toBeDefined();
      if (message) expect(error!.message).toBe(message);
    }
  });

  it("is changed with the observation while it waits, and goes with a type changed away from monitoring", async () => {
    const { submit } = await network();
    const created = (await submit({ type: "monitoring" })).body as Observation;
    const put = (json: unknown) => call(`/observations/${created.id}`, { method: "PUT", token: owner.token, json });
    const until = new Date(Date.now() + 24 * 60 * MINUTE).toISOString();
    expect((await put({ monitoring: { intervalMinutes: 30, until, maxRuns: 4 } })).body).toMatchObject({
      monitoring: { intervalMinutes: 30, until, maxRuns: 4 },
    });
    expect((await put({ type: "flexible" })).body).toMatchObject({ type: "flexible", isMonitoring: false, monitoring: null });
    const refused = await put({ monitoring: { intervalMinutes: 30 } });
    expect(refused).toMatchObject({ status: 400, body: { code: "VALIDATION_FAILED", errors: [{ path: "monitoring" }] } });
    expect((await put({ type: "monitoring", monitoring: { intervalMinutes: 5 } })).body).toMatchObject({
      type: "monitoring",
      monitoring: { intervalMinutes: 5 },
    });
    expect((await put({ monitoring: null })).body).toMatchObject({ monitoring: null });
  });

  it("repeats a monitoring observation at its interval after each run, and ends it completed after maxRuns runs", async () => {
    const { observatory, submit, connect } = await network();
    const created = (await submit({ type: "monitoring", monitoring: { intervalMinutes: 30, maxRuns: 2 } })).body as Observation;
    const plugin = await connect();
    await until("the first assignment", async () => assigned(plugin, created.id, 0));
    await run(plugin, created.id, "completed");

    const waiting = await read(created.id);
    expect(waiting).toMatchObject({ status: "pending", monitoringRuns: { count: 1 } });
    const nextRun = new Date(Date.parse(waiting.monitoringRuns!.lastEndedAt) + 30 * MINUTE).toISOString();
    const queue = (await must(`/observatories/${observatory.id}/queue`, { token: owner.token }, 200)) as {
      items: Array<{ observation: { id: string }; eligible: boolean; blockedBy: { code: string; until: string | null } | null }>;
    };
    expect(queue.items.find((item) => item.observation.id === created.id)).toMatchObject({
      eligible: false,
      blockedBy: { code: "BEFORE_WINDOW", until: nextRun },
    });
    // Dispatch (the minute's sweep, here called at once) does not send it before its interval is over...
    moveClock(29 * MINUTE);
    expect(await dispatchObservatory({ deps: server.server.runtime.deps, observatoryId: observatory.id })).toBeNull();
    expect((await read(created.id)).status).toBe("pending");
    // ...and sends it again once it is.
    moveClock(31 * MINUTE);
    // (The minute's sweep may run first; either way it is assigned once.)
    await dispatchObservatory({ deps: server.server.runtime.deps, observatoryId: observatory.id });
    await until("the second assignment", async () => assigned(plugin, created.id, 1));
    // The last run fails: the series is over all the same, and ends completed.
    await run(plugin, created.id, "failed");

    const ended = await read(created.id);
    expect(ended).toMatchObject({ status: "completed", statusReason: "monitoring ended after 2 of 2 runs", monitoringRuns: { count: 2 } });
    const history = (await must(`/observations/${created.id}/history`, { token: owner.token }, 200)) as {
      items: Array<{ from: string | null; to: string; actor: { kind: string } }>;
    };
    expect(history.items.map((entry) => [entry.from, entry.to, entry.actor.kind])).toEqual([
      [null, "pending", "user"],
      ["pending", "assigned", "system"],
      ["assigned", "in_progress", "observatory"],
      ["in_progress", "acquisition_complete", "observatory"],
      ["acquisition_complete", "completed", "observatory"],
      ["completed", "pending", "system"],
      ["pending", "assigned", "system"],
      ["assigned", "in_progress", "observatory"],
      ["in_progress", "failed", "observatory"],
      ["failed", "completed", "system"],
    ]);
    const after = (await must(`/observatories/${observatory.id}/queue`, { token: owner.token }, 200)) as { items: Array<{ observation: { id: string } }> };
    expect(after.items.map((item) => item.observation.id)).not.toContain(created.id);
  });

  it("ends a monitoring observation completed for good when no run could start before its until", async () => {
    const { observatory, submit, connect } = await network();
    const endsAt = new Date(Date.now() + 45 * MINUTE).toISOString();
    const created = (await submit({ type: "monitoring", monitoring: { intervalMinutes: 30, until: endsAt } })).body as Observation;
    const plugin = await connect();
    await until("the first assignment", async () => assigned(plugin, created.id, 0));
    await run(plugin, created.id, "completed");
    // Its first run ended well before `until`, less than an interval away: it repeats.
    expect(await read(created.id)).toMatchObject({ status: "pending", monitoringRuns: { count: 1 } });

    moveClock(31 * MINUTE);
    // (The minute's sweep may run first; either way it is assigned once.)
    await dispatchObservatory({ deps: server.server.runtime.deps, observatoryId: observatory.id });
    await until("the second assignment", async () => assigned(plugin, created.id, 1));
    await run(plugin, created.id, "completed");
    // The next run could only start 30 minutes after this end, past `until`: over.
    const ended = await read(created.id);
    expect(ended).toMatchObject({ status: "completed", monitoringRuns: { count: 2 } });
    const history = (await must(`/observations/${created.id}/history`, { token: owner.token }, 200)) as { items: Array<{ to: string }> };
    expect(history.items.at(-1)).toMatchObject({ to: "completed" });
    expect(history.items.filter((entry) => entry.to === "pending")).toHaveLength(2);
  });
});
