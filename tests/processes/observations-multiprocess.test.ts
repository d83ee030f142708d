import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { markSilentObservatoriesOffline } from "@meridian/domain/observatories";
import { ObservatorySimulator } from "@meridian/simulator";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { dispatchJobsDone } from "../support/dispatch-jobs";
import { freePort } from "../../scripts/free-port";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { isRunning, spawnEntry, terminate, waitForOutput, type NodeProcess } from "../support/node-process";
import { sharedProcessEnv, type TestServer } from "../support/test-server";
import { until } from "../support/until";
import { openPluginSocket, type PluginSocket } from "../support/plugin-socket";
import { openWebSocket, type OpenClient } from "../support/ws-client";

const ADMIN = { email: "observations-multi-admin@example.com", password: "observations multi admin password" };
let serverA: TestServer;
let urlB: string;
let urlC: string;
const processes: NodeProcess[] = [];
const closers: Array<() => Promise<unknown>> = [];

const sharedEnv = (dataDir: string) => ({ ...sharedProcessEnv(serverA, dataDir), NODE_ENV: "test", WEB_DIST_DIR: path.join(dataDir, "no-web") });

async function spawnServer(name: string) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), `meridian-obs-${name}-`));
  const port = await freePort();
  const proc = spawnEntry("server", { ...sharedEnv(dataDir), PORT: String(port), MERIDIAN_ROLE: "server" }, name);
  processes.push(proc);
  await waitForOutput(proc, /listening on/, 60_000);
  return `http://127.0.0.1:${port}`;
}

async function spawnWorker(name: string) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), `meridian-obs-${name}-`));
  const proc = spawnEntry("worker", { ...sharedEnv(dataDir), LOG_LEVEL: "info" }, name);
  processes.push(proc);
  await waitForOutput(proc, /Meridian worker running/);
}

beforeAll(async () => {
  // Three server processes (A in this one, B and C spawned) and two spawned workers, over one database.
  ({ server: serverA } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "server" }));
  [urlB, urlC] = await Promise.all([spawnServer("server-B"), spawnServer("server-C"), spawnWorker("worker-1"), spawnWorker("worker-2")]);
}, 180_000);
afterAll(async () => {
  for (const close of closers) await close().catch(() => undefined);
  for (const proc of processes) if (isRunning(proc)) await terminate(proc, 20_000);
  await serverA?.stop();
}, 90_000);
const { must } = jsonApi(() => serverA);

const target = { name: "Altair", ra: 297.7, dec: 8.87, exposures: [{ filter: "B", exposureSeconds: 1, count: 1, binning: 1 }] };

async function observatoryWithKey(owner: Account) {
  const observatory = (await must("/observatories", { method: "POST", token: owner.token, json: { name: `Scope ${randomUUID().slice(0, 6)}` } }, 201)) as {
    id: string;
  };
  const key = (await must(`/observatories/${observatory.id}/api-keys`, { method: "POST", token: owner.token, json: { name: "plugin" } }, 201)) as {
    key: string;
  };
  return { id: observatory.id, key: key.key };
}

async function pluginOn(url: string, key: string) {
  const socket = await openPluginSocket(url, key);
  closers.push(() => socket.client.close());
  return socket;
}

const assignsOf = (socket: PluginSocket) => socket.received().flatMap((message) => (message.type === "assign" ? [message.observation.id] : []));

async function simulatorOn(url: string, key: string, speed: number) {
  const simulator = new ObservatorySimulator({ url, key, speed });
  closers.push(() => simulator.close());
  await simulator.connect();
  return simulator;
}

describe("observations across server and worker processes", () => {
  it("assigns work created through one process to an observatory connected to another, and a user on a third sees it live", async () => {
    const owner = await createAccount(serverA);
    const observatory = await observatoryWithKey(owner);
    const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: "Across" } }, 201)) as { id: string };
    const simulator = await simulatorOn(urlB, observatory.key, 1000);
    const socket: OpenClient = await openWebSocket(`${urlC.replace(/^http/, "ws")}/ws`, { authorization: `Bearer ${owner.token}` });
    closers.push(() => socket.close());
    const created = (await must(
      "/observations",
      { method: "POST", token: owner.token, json: { name: "Across", projectId: project.id, observatoryId: observatory.id, targets: [target] } },
      201,
    )) as { id: string };
    for (const status of ["assigned", "in_progress", "acquisition_complete", "completed"])
      await socket.waitFor(
        (message) => message.type === "observation.status_changed" && (message.data as { id: string; status: string }).status === status,
        `${status} on server C`,
      );
    expect(simulator.received.filter((message) => message.type === "assign")).toHaveLength(1);
    const files = (await must(`/observations/${created.id}/files`, { token: owner.token }, 200)) as { items: unknown[] };
    expect(files.items).toHaveLength(2);
  });

  it("delivers an event too large to ride in its notice across processes, read back by its id", async () => {
    const owner = await createAccount(serverA);
    const observatory = await observatoryWithKey(owner);
    const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: "Large" } }, 201)) as { id: string };
    const plugin = await pluginOn(urlB, observatory.key);
    expect((await plugin.ask({ type: "hello", pluginVersion: "3.8.0.0" })).type).toBe("ack");
    const socket: OpenClient = await openWebSocket(`${urlC.replace(/^http/, "ws")}/ws`, { authorization: `Bearer ${owner.token}` });
    closers.push(() => socket.close());
    // 60 targets with names of 150 characters: the assign event is past the 8,000 bytes a NOTIFY may carry.
    const targets = Array.from({ length: 60 }, (_, index) => ({ ...target, name: `${String(index).padStart(3, "0")} ${"x".repeat(146)}` }));
    const created = (await must(
      "/observations",
      { method: "POST", token: owner.token, json: { name: "Large", projectId: project.id, observatoryId: observatory.id, targets } },
      201,
    )) as { id: string };
    const assign = await plugin.client.waitFor((message) => (message as { type?: string }).type === "assign", "the large assign on server B");
    expect(JSON.stringify(assign).length).toBeGreaterThan(8_000);
    expect((assign as unknown as { observation: { id: string; targets: Array<{ name: string }> } }).observation.targets.map((item) => item.name)).toEqual(
      targets.map((item) => item.name),
    );
    await socket.waitFor(
      (message) => message.type === "observation.status_changed" && (message.data as { id: string; status: string }).id === created.id,
      "the assigned status on server C",
    );
  });

  it("never assigns two observations to one observatory, or one observation twice, however many dispatches race", async () => {
    const owner = await createAccount(serverA);
    const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: "Race" } }, 201)) as { id: string };
    const observatories = await Promise.all(Array.from({ length: 4 }, () => observatoryWithKey(owner)));
    // Connected (to B and C) but unsafe, so the observations wait.
    const simulators = await Promise.all(observatories.map((observatory, index) => simulatorOn(index % 2 ? urlB : urlC, observatory.key, 0.0001)));
    await Promise.all(simulators.map((simulator) => simulator.safety(false, "dome closed")));
    const observationIds: string[] = [];
    for (const observatory of observatories)
      for (let index = 0; index < 5; index += 1) {
        const created = (await must(
          "/observations",
          { method: "POST", token: owner.token, json: { name: `Race ${index}`, projectId: project.id, observatoryId: observatory.id, targets: [target] } },
          201,
        )) as { id: string };
        observationIds.push(created.id);
      }
    // All safe at once, with thirty dispatches per observatory for the two workers to race over.
    const db = serverA.server.runtime.deps.db;
    const ids = observatories.map((observatory) => observatory.id);
    await db.transaction(async (tx) => {
      await tx.execute(sql`
        update observatories set doc = jsonb_set(doc, '{conditions,safe}', 'true'::jsonb)
         where id in ${ids}`);
      await tx.execute(sql`
        select graphile_worker.add_job('dispatch_observatory', json_build_object('observatoryId', o.id))
          from unnest(${`{${ids.join(",")}}`}::text[]) as o(id), generate_series(1, 30)`);
    });
    await dispatchJobsDone(serverA, 60_000);
    const rows = await db.execute<{ observatory_id: string; status: string; assigned: number }>(sql`
      select o.observatory_id, o.status,
             (select count(*)::int from observation_history h where h.observation_id = o.id and h.doc->>'to' = 'assigned') as assigned
        from observations o where o.id in ${observationIds}`);
    for (const observatory of observatories) {
      const mine = rows.filter((row) => row.observatory_id === observatory.id);
      expect(mine.filter((row) => row.status !== "pending")).toHaveLength(1);
    }
    expect(rows.every((row) => row.assigned <= 1)).toBe(true);
    const assigns = () => simulators.map((simulator) => simulator.received.filter((message) => message.type === "assign").length);
    await until("each observatory's assign", async () => assigns().every((count) => count >= 1));
    expect(assigns()).toEqual([1, 1, 1, 1]);
  });

  it("replaces an older connection of a key with a newer one on another process (4409): nothing goes offline or back to pending", async () => {
    const owner = await createAccount(serverA);
    const observatory = await observatoryWithKey(owner);
    const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: "Replaced" } }, 201)) as { id: string };
    const submit = async (name: string) =>
      (await must(
        "/observations",
        { method: "POST", token: owner.token, json: { name, projectId: project.id, observatoryId: observatory.id, targets: [target] } },
        201,
      )) as { id: string };
    const older = await pluginOn(serverA.url, observatory.key);
    expect(await older.ask({ type: "hello", pluginVersion: "3.8.0.0" })).toMatchObject({ type: "ack" });
    const first = await submit("First");
    await until("the first assignment on the older connection", async () => assignsOf(older).includes(first.id));

    const newer = await pluginOn(urlB, observatory.key);
    expect(await older.closed).toBe(4409);
    expect(await newer.ask({ type: "hello", pluginVersion: "3.8.0.0" })).toMatchObject({ type: "ack" });
    // Process A has handled the older socket's close in full (its close handler included).
    await until("server A to let go of the older socket", async () => serverA.server.hub.status().connections === 0);

    const read = (await must(`/observatories/${observatory.id}`, { token: owner.token })) as { connection: { online: boolean } };
    expect(read.connection.online).toBe(true);
    const entries = (await must(`/observatories/${observatory.id}/history`, { token: owner.token })) as { items: Array<{ type: string }> };
    expect(entries.items.map((entry) => entry.type)).not.toContain("offline");
    const moves = (await must(`/observations/${first.id}/history`, { token: owner.token })) as { items: Array<{ to: string }> };
    expect(moves.items.map((entry) => entry.to)).toEqual(["pending", "assigned"]);

    // The newer connection hears, at its hello, the assignment it has not started; it carries it on, and the next assignment reaches it alone.
    for (const status of ["in_progress", "acquisition_complete", "completed"] as const)
      expect(await newer.ask({ type: "observation_status", observationId: first.id, status })).toMatchObject({ type: "ack" });
    const second = await submit("Second");
    await until("the second assignment on the newer connection", async () => assignsOf(newer).includes(second.id));
    expect(assignsOf(newer)).toEqual([first.id, second.id]);
    expect(assignsOf(older)).toEqual([first.id]);
  });

  it("keeps exactly one of two connections that open with one key at the same moment on two processes", async () => {
    const owner = await createAccount(serverA);
    const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: "Racing keys" } }, 201)) as { id: string };
    for (let round = 0; round < 3; round += 1) {
      const observatory = await observatoryWithKey(owner);
      const pair = await Promise.all([pluginOn(urlB, observatory.key), pluginOn(urlC, observatory.key)]);
      const closedWith: Array<number | undefined> = [undefined, undefined];
      pair.forEach((socket, index) => void socket.closed.then((code) => (closedWith[index] = code)));
      // The replaced one may be closed before its hello is handled: it gets no answer then.
      const hellos = pair.map((socket) => socket.send({ type: "hello", pluginVersion: "3.8.0.0" }));
      await until("one of the two to be replaced", async () => closedWith.filter((code) => code !== undefined).length === 1);
      const surviving = closedWith[0] === undefined ? 0 : 1;
      const survivor = pair[surviving]!;
      expect(closedWith.find((code) => code !== undefined)).toBe(4409);
      expect(await survivor.replyTo(hellos[surviving]!)).toMatchObject({ type: "ack" });
      const created = (await must(
        "/observations",
        { method: "POST", token: owner.token, json: { name: `Race ${round}`, projectId: project.id, observatoryId: observatory.id, targets: [target] } },
        201,
      )) as { id: string };
      await until("the assignment on the surviving connection", async () => assignsOf(survivor).includes(created.id));
      expect(pair.flatMap(assignsOf)).toEqual([created.id]);
      expect(closedWith.filter((code) => code !== undefined)).toHaveLength(1);
      const read = (await must(`/observatories/${observatory.id}`, { token: owner.token })) as { connection: { online: boolean } };
      expect(read.connection.online).toBe(true);
    }
  });

  it("takes offline, at the minute's sweep, an observatory whose server process died with its connection", async () => {
    const owner = await createAccount(serverA);
    const observatory = await observatoryWithKey(owner);
    const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: "Orphaned" } }, 201)) as { id: string };
    const doomedUrl = await spawnServer("server-doomed");
    const doomed = processes.at(-1)!;
    const socket = await pluginOn(doomedUrl, observatory.key);
    await socket.ask({ type: "hello", pluginVersion: "3.8.0.0" });
    const created = (await must(
      "/observations",
      { method: "POST", token: owner.token, json: { name: "Orphan", projectId: project.id, observatoryId: observatory.id, targets: [target] } },
      201,
    )) as { id: string };
    await until("the assignment", async () => assignsOf(socket).includes(created.id));
    doomed.child.kill("SIGKILL");
    await doomed.exited;
    const deps = serverA.server.runtime.deps;
    const online = async () =>
      ((await must(`/observatories/${observatory.id}`, { token: owner.token })) as { connection: { online: boolean } }).connection.online;
    // Not yet silent for the heartbeat timeout: a live process would still be heartbeating.
    expect(await markSilentObservatoriesOffline({ deps })).not.toContain(observatory.id);
    expect(await online()).toBe(true);
    const later = { ...deps, now: () => new Date(Date.now() + 10 * 60_000) };
    expect(await markSilentObservatoriesOffline({ deps: later })).toContain(observatory.id);
    expect(await online()).toBe(false);
    const observation = (await must(`/observations/${created.id}`, { token: owner.token })) as { status: string };
    expect(observation.status).toBe("pending");
  });
  it("sends an assignment made while the plugin's server lay dead again when the plugin says hello on another process", async () => {
    const owner = await createAccount(serverA);
    const observatory = await observatoryWithKey(owner);
    const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: "Survivors" } }, 201)) as { id: string };
    const doomedUrl = await spawnServer("server-doomed-2");
    const doomed = processes.at(-1)!;
    const first = await pluginOn(doomedUrl, observatory.key);
    await first.ask({ type: "hello", pluginVersion: "3.8.0.0" });
    doomed.child.kill("SIGKILL");
    await doomed.exited;
    // The observatory still reads online (its process died without a word), so dispatch assigns to it: to no one.
    const created = (await must(
      "/observations",
      { method: "POST", token: owner.token, json: { name: "Unheard", projectId: project.id, observatoryId: observatory.id, targets: [target] } },
      201,
    )) as { id: string };
    await until(
      "the assignment",
      async () => ((await must(`/observations/${created.id}`, { token: owner.token })) as { status: string }).status === "assigned",
    );
    expect(assignsOf(first)).not.toContain(created.id);

    const second = await pluginOn(urlB, observatory.key);
    await second.ask({ type: "hello", pluginVersion: "3.8.0.0" });
    await until("the assignment to be sent again", async () => assignsOf(second).includes(created.id));
    await second.ask({ type: "observation_status", observationId: created.id, status: "in_progress" });
    const history = (await must(`/observations/${created.id}/history`, { token: owner.token })) as { items: Array<{ to: string }> };
    expect(history.items.filter((entry) => entry.to === "assigned")).toHaveLength(1);
  });
});
