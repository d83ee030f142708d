import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { connectDatabase } from "@meridian/db";
import { ObservatorySimulator } from "@meridian/simulator";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/free-port";
import { isRunning, spawnEntry, terminate, waitForOutput, type NodeProcess } from "../support/node-process";
import { createTestDatabase } from "../support/test-database";
import { until } from "../support/until";
import { runStoreEnv } from "../support/run-store";

const OBSERVATORIES = 20;
const target = { name: "Vega", ra: 279.23, dec: 38.78, exposures: [{ filter: "V", exposureSeconds: 1, count: 1, binning: 1 }] };

describe("stopping a server with observatories connected", () => {
  let proc: NodeProcess | undefined;
  let dataDir: string | undefined;
  const simulators: ObservatorySimulator[] = [];
  afterAll(async () => {
    for (const simulator of simulators) await simulator.close().catch(() => undefined);
    if (proc && isRunning(proc)) await terminate(proc);
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  it("closes every plugin connection with 1001 and records each observatory offline before exiting 0, even with plugins that do not answer", async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-observatory-stop-"));
    const database = await createTestDatabase();
    const port = await freePort();
    proc = spawnEntry("server", {
      MERIDIAN_ROLE: "all",
      PORT: String(port),
      DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      ...runStoreEnv("observatory-stop-test"),
      SECRETS_KEY: "test secrets key shared by every process of this run",
      WEB_DIST_DIR: path.join(dataDir, "no-web"),
    });
    await waitForOutput(proc, /listening on/);
    const url = `http://127.0.0.1:${port}`;
    const call = async (pathname: string, token: string | undefined, json?: unknown) => {
      const response = await fetch(`${url}${pathname}`, {
        method: json === undefined ? "GET" : "POST",
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(json === undefined ? {} : { "content-type": "application/json" }) },
        body: json === undefined ? undefined : JSON.stringify(json),
      });
      if (!response.ok) throw new Error(`${pathname}: ${response.status} ${await response.text()}`);
      return response.json() as Promise<Record<string, unknown>>;
    };
    const { token } = (await call("/api/v1/auth/signup", undefined, {
      email: "stopping@example.com",
      password: "correct horse battery",
      name: "Stopping",
    })) as { token: string };
    const project = (await call("/projects", token, { name: "Stopping" })) as { id: string };
    const observatoryIds: string[] = [];
    const observationIds: string[] = [];
    for (let index = 0; index < OBSERVATORIES; index += 1) {
      const observatory = (await call("/observatories", token, { name: `Scope ${index}` })) as { id: string };
      const { key } = (await call(`/observatories/${observatory.id}/api-keys`, token, { name: "plugin" })) as { key: string };
      observatoryIds.push(observatory.id);
      // Slow enough that an observation it starts is still running when the server stops.
      const simulator = new ObservatorySimulator({ url, key, speed: 0.0001 });
      simulators.push(simulator);
      await simulator.connect();
    }
    const closes = simulators.map((simulator) => new Promise<number>((resolve) => simulator.once("close", (code: number) => resolve(code))));
    // A quarter of them behind stalled links: they read neither their assignment nor the server's close until the server is gone.
    const stalled = simulators.slice(0, OBSERVATORIES / 4);
    for (const simulator of stalled) simulator.stallNetwork();
    for (const [index, observatoryId] of observatoryIds.entries()) {
      const observation = (await call("/observations", token, { name: `Run ${index}`, projectId: project.id, observatoryId, targets: [target] })) as {
        id: string;
      };
      observationIds.push(observation.id);
    }
    const statusOf = async (id: string) => ((await call(`/observations/${id}`, token)) as { status: string }).status;
    await until("every observation assigned, and started where the plugin hears", async () => {
      const statuses = await Promise.all(observationIds.map(statusOf));
      return statuses.every((status, index) => status === (index < stalled.length ? "assigned" : "in_progress"));
    });

    expect(await terminate(proc)).toEqual({ code: 0, signal: null });
    for (const simulator of stalled) simulator.resumeNetwork();
    expect(await Promise.all(closes)).toEqual(Array.from({ length: OBSERVATORIES }, () => 1001));
    expect(proc.output()).not.toMatch(/uncaught|unhandled|CONNECTION_CLOSED|CONNECTION_ENDED|"level":(50|60)/i);

    const db = connectDatabase(database.url, { max: 1 });
    try {
      const rows = await db.sql<Array<{ id: string; online: boolean; offline: number }>>`
        select o.id, (o.doc->'connection'->>'online')::boolean as online,
               (select count(*)::int from observatory_history h
                 where h.observatory_id = o.id and h.doc->>'type' = 'offline' and h.doc->'data'->>'reason' = 'server_shutdown') as offline
          from observatories o`;
      expect(rows.map((row) => row.id).sort()).toEqual([...observatoryIds].sort());
      expect(rows.filter((row) => row.online || row.offline !== 1)).toEqual([]);
      // An observation assigned but never started waits again for dispatch; a running one is left to its plugin.
      const observations = await db.sql<Array<{ id: string; status: string }>>`select id, status from observations where id in ${db.sql(observationIds)}`;
      const statusById = new Map(observations.map((row) => [row.id, row.status]));
      expect(observationIds.map((id) => statusById.get(id))).toEqual(observationIds.map((_id, index) => (index < stalled.length ? "pending" : "in_progress")));
    } finally {
      await db.close();
    }
  }, 180_000);
});
