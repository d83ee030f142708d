import { randomUUID } from "node:crypto";
import { dispatchObservatory, reassignFromUnavailableObservatories } from "@meridian/domain/observations";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { writeCandidatesOfAnAssignedObservation } from "../support/candidates-stand-in";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { openPluginSocket, type PluginSocket } from "../support/plugin-socket";
import { holdRows, lockWaiters } from "../support/table-hold";
import { controlServerClock, type TestClock } from "../support/test-clock";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

/**
 * Issue 60 point 4 (contract, "Network scheduling"): an observation assigned but not started at an observatory offline,
 * unsafe or held for weather for REASSIGN_AFTER_MINUTES (10 here, the default) that names other candidates goes back to
 * pending; the observatory is told `cancel`, and what its plugin still says of it is refused. The server runs no worker
 * (its role is `server`): an idle observatory is assigned one with a single observatory at submission, one with
 * candidates by the dispatch each test runs itself (no network plan is made, so dispatch alone decides), and each test
 * runs the failover's sweep itself on the server's clock, which it moves.
 */
const ADMIN = { email: "observation-failover-admin@example.com", password: "observation failover admin password" };
const MINUTE = 60_000;
const REASSIGN_AFTER = 10 * MINUTE;
let server: TestServer;
const sockets: PluginSocket[] = [];
beforeAll(async () => {
  ({ server } = await startServerWithAdmin(ADMIN));
});
afterAll(async () => {
  for (const socket of sockets) socket.client.ws.close();
  await server?.stop();
});
const { must } = jsonApi(() => server);
const deps = () => server.server.runtime.deps;

const target = { name: "Deneb", ra: 310.36, dec: 45.28, exposures: [{ filter: "Ha", exposureSeconds: 60, count: 10, binning: 2 }] };

interface ObservatoryRead {
  id: string;
  createdAt: string;
  connection: { online: boolean; lastSeenAt?: string };
}
interface HistoryEntry {
  from: string | null;
  to: string;
  actor: { kind: string; id: string };
  reason: string | null;
}

/**
 * Two observatories without a location (no darkness rule) and a project, all the owner's; a plugin key for the first.
 * `submit`: an observation at the first, or with both as candidates, then dispatched at the first (which must be connected).
 */
async function network(owner: Account) {
  const tag = randomUUID().slice(0, 6);
  const first = (await must("/observatories", { method: "POST", token: owner.token, json: { name: `First ${tag}` } }, 201)) as ObservatoryRead;
  const second = (await must("/observatories", { method: "POST", token: owner.token, json: { name: `Second ${tag}` } }, 201)) as ObservatoryRead;
  const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: `Survey ${tag}` } }, 201)) as { id: string };
  const key = (await must(`/observatories/${first.id}/api-keys`, { method: "POST", token: owner.token, json: { name: "plugin" } }, 201)) as { key: string };
  const submit = async (options: { candidates: boolean }) => {
    const where = options.candidates ? { candidateObservatoryIds: [first.id, second.id] } : { observatoryId: first.id };
    const observation = (await must(
      "/observations",
      { method: "POST", token: owner.token, json: { name: `Field ${tag}`, projectId: project.id, ...where, targets: [target] } },
      201,
    )) as { id: string };
    if (options.candidates) expect(await dispatchObservatory({ deps: deps(), observatoryId: first.id })).toMatchObject({ id: observation.id });
    return observation.id;
  };
  /**
   * One with both as candidates, assigned at the first where dispatch cannot assign it (the first never connected, or
   * busy): an operator cannot assign one with candidates, so it is submitted to the first, assigned by its operator,
   * and given the candidates then.
   */
  const assignedByOperatorWithCandidates = async () => {
    const observationId = await submit({ candidates: false });
    await must(`/observations/${observationId}/status`, { method: "POST", token: owner.token, json: { status: "assigned" } }, 200);
    await writeCandidatesOfAnAssignedObservation({ db: deps().db, observationId, candidateObservatoryIds: [first.id, second.id] });
    return observationId;
  };
  return { first, second, key: key.key, submit, assignedByOperatorWithCandidates };
}

/** The first observatory's plugin, connected and said hello: it hears `assign` and `cancel` and starts nothing unless told. */
async function plugin(key: string) {
  const socket = await openPluginSocket(server.url, key);
  sockets.push(socket);
  expect(await socket.ask({ type: "hello", pluginVersion: "4.0.0.0" })).toMatchObject({ type: "ack" });
  return socket;
}

const observatory = (owner: Account, id: string) => must(`/observatories/${id}`, { token: owner.token }) as Promise<ObservatoryRead>;
const statusOf = async (owner: Account, id: string) => ((await must(`/observations/${id}`, { token: owner.token })) as { status: string }).status;
const historyOf = async (owner: Account, id: string) =>
  ((await must(`/observations/${id}/history`, { token: owner.token })) as { items: HistoryEntry[] }).items;
const observatoryHistory = async (owner: Account, id: string) =>
  ((await must(`/observatories/${id}/history`, { token: owner.token })) as { items: Array<{ type: string; at: string; data: Record<string, unknown> }> }).items;
/** When the observatory's history says a condition began, by the server's clock (`data.at`): its newest entry of that type. */
const entryAt = async (owner: Account, id: string, type: string) =>
  Date.parse((await until(`a ${type} entry`, async () => (await observatoryHistory(owner, id)).find((entry) => entry.type === type)))!.data.at as string);
/** Closes the plugin's connection and waits until the observatory reads offline; answers when it was last seen. */
async function disconnect(owner: Account, socket: PluginSocket, observatoryId: string) {
  socket.client.ws.close();
  const offline = await until("the observatory offline", async () => {
    const read = await observatory(owner, observatoryId);
    return !read.connection.online && read;
  });
  return Date.parse(offline.connection.lastSeenAt!);
}
const cancelsHeard = (socket: PluginSocket, observationId: string) =>
  socket.received().filter((message) => message.type === "cancel" && message.observationId === observationId).length;

/** The server's clock from now on (each test starts its own at the real time, as the database stamps history). */
let clock: TestClock;
const sweep = () => reassignFromUnavailableObservatories({ deps: deps() });

/**
 * Moves the clock to one minute before the boundary (nothing moves) and then to the boundary itself (the observation
 * waits again, moved by the system with the reason "observatory unavailable").
 */
async function expectMovedExactlyAtBoundary(owner: Account, observationId: string, since: number) {
  clock.set(since + REASSIGN_AFTER - MINUTE);
  expect(await sweep()).not.toContain(observationId);
  expect(await statusOf(owner, observationId)).toBe("assigned");
  clock.set(since + REASSIGN_AFTER);
  expect(await sweep()).toEqual([observationId]);
  expect(await statusOf(owner, observationId)).toBe("pending");
  // Back at none of its candidates, to be planned again (contract: `observatoryId` null while it waits).
  expect(await must(`/observations/${observationId}`, { token: owner.token })).toMatchObject({ observatoryId: null });
  expect((await historyOf(owner, observationId)).at(-1)).toMatchObject({
    from: "assigned",
    to: "pending",
    actor: { kind: "system" },
    reason: "observatory unavailable",
  });
}

describe("observations at an observatory that goes down", () => {
  it("moves back to pending exactly REASSIGN_AFTER_MINUTES after the observatory went offline (counted from when it was last seen)", async () => {
    clock = controlServerClock(server, Date.now());
    const owner = await createAccount(server);
    const { first, key, submit } = await network(owner);
    const socket = await plugin(key);
    const observationId = await submit({ candidates: true });
    expect(await statusOf(owner, observationId)).toBe("assigned");
    const lastSeen = await disconnect(owner, socket, first.id);
    // Offline, it keeps its assignment (a plugin back within the time goes on with it) ...
    expect(await statusOf(owner, observationId)).toBe("assigned");
    // ... until the time has passed since it was last seen.
    await expectMovedExactlyAtBoundary(owner, observationId, lastSeen);
    const entry = (await observatoryHistory(owner, first.id)).find((item) => item.type === "observation_reassigned");
    expect(entry?.data).toMatchObject({ observationId, reason: "observatory unavailable", unavailable: ["offline"] });
  });

  it("moves back exactly REASSIGN_AFTER_MINUTES after the observatory reported unsafe, asks for the sweep then, and tells it cancel at once", async () => {
    clock = controlServerClock(server, Date.now());
    const owner = await createAccount(server);
    const { first, key, submit } = await network(owner);
    const socket = await plugin(key);
    const observationId = await submit({ candidates: true });
    expect(await socket.ask({ type: "safety", safe: false, reason: "rain sensor" })).toMatchObject({ type: "ack" });
    const since = await entryAt(owner, first.id, "safety_event");
    const [job] = await deps().db.execute<{ run_at: string }>(sql`
      select run_at::text from graphile_worker._private_jobs where key = ${`failover:${first.id}`}`);
    expect(Date.parse(job!.run_at)).toBe(since + REASSIGN_AFTER);
    await expectMovedExactlyAtBoundary(owner, observationId, since);
    // Still connected: it hears the cancel now, not at a later hello.
    await until("the cancel", async () => cancelsHeard(socket, observationId) === 1);
  });

  it("moves back exactly REASSIGN_AFTER_MINUTES after a weather hold began", async () => {
    clock = controlServerClock(server, Date.now());
    const owner = await createAccount(server);
    const { first, key, submit } = await network(owner);
    const socket = await plugin(key);
    const observationId = await submit({ candidates: true });
    expect(await socket.ask({ type: "weather", hold: true, reason: "clouds" })).toMatchObject({ type: "ack" });
    await expectMovedExactlyAtBoundary(owner, observationId, await entryAt(owner, first.id, "weather_hold"));
  });

  it("counts from the observatory's creation when it never connected", async () => {
    clock = controlServerClock(server, Date.now());
    const owner = await createAccount(server);
    const { first, assignedByOperatorWithCandidates } = await network(owner);
    // Assigned by its operator: dispatch assigns nothing at an observatory that is not connected.
    const observationId = await assignedByOperatorWithCandidates();
    expect((await observatory(owner, first.id)).connection.lastSeenAt).toBeUndefined();
    await expectMovedExactlyAtBoundary(owner, observationId, Date.parse(first.createdAt));
  });

  it("never moves an observation in progress, nor one with a single observatory (which keeps its assignment as before)", async () => {
    clock = controlServerClock(server, Date.now());
    const owner = await createAccount(server);
    const { first, key, submit, assignedByOperatorWithCandidates } = await network(owner);
    const socket = await plugin(key);
    const started = await submit({ candidates: true });
    expect(await socket.ask({ type: "observation_status", observationId: started, status: "in_progress" })).toMatchObject({ type: "ack" });
    expect(await socket.ask({ type: "safety", safe: false })).toMatchObject({ type: "ack" });
    // The one in progress holds the observatory: these wait, and are then assigned there by its operator.
    const single = await submit({ candidates: false });
    await must(`/observations/${single}/status`, { method: "POST", token: owner.token, json: { status: "assigned" } }, 200);
    const unstarted = await assignedByOperatorWithCandidates();
    clock.set((await entryAt(owner, first.id, "safety_event")) + REASSIGN_AFTER + 60 * MINUTE);
    // Of the three, only the unstarted one with other candidates waits again.
    expect(await sweep()).toEqual([unstarted]);
    expect(await statusOf(owner, started)).toBe("in_progress");
    expect(await statusOf(owner, single)).toBe("assigned");
    expect(await statusOf(owner, unstarted)).toBe("pending");
  });

  it("sends cancel to the observatory when it connects again, and refuses its late reports and files without changing the status", async () => {
    clock = controlServerClock(server, Date.now());
    const owner = await createAccount(server);
    const { first, key, submit } = await network(owner);
    const socket = await plugin(key);
    const observationId = await submit({ candidates: true });
    clock.set((await disconnect(owner, socket, first.id)) + REASSIGN_AFTER);
    expect(await sweep()).toEqual([observationId]);
    const moves = (await historyOf(owner, observationId)).length;

    const back = await plugin(key);
    // Sent with the hello's handling, before its ack.
    expect(cancelsHeard(back, observationId)).toBe(1);
    expect(back.received().some((message) => message.type === "assign")).toBe(false);
    // What the plugin still says of it is refused as for any observation not at this observatory.
    for (const status of ["in_progress", "completed"] as const)
      expect(await back.ask({ type: "observation_status", observationId, status })).toMatchObject({ type: "error", code: "NOT_FOUND" });
    const upload = await server.request(`/observations/${observationId}/files?filename=late.fits`, {
      method: "POST",
      token: key,
      headers: { "content-type": "application/fits" },
      body: new Uint8Array(2880),
    });
    await expectProblem(upload, 404, "NOT_FOUND");
    expect(await statusOf(owner, observationId)).toBe("pending");
    expect(await historyOf(owner, observationId)).toHaveLength(moves);
    expect((await must(`/observations/${observationId}/files`, { token: owner.token })) as { items: unknown[] }).toMatchObject({ items: [] });
  });

  it("counts on the server's clock however far the database's is from it, and sends cancel at the next hello", async () => {
    // A month ahead of the database's clock, which stamps the history's rows (their created_at).
    clock = controlServerClock(server, Date.now() + 30 * 24 * 60 * MINUTE);
    const owner = await createAccount(server);
    const { first, key, submit } = await network(owner);
    const socket = await plugin(key);
    const unsafeAt = clock.now();
    const observationId = await submit({ candidates: true });
    expect(await socket.ask({ type: "safety", safe: false, reason: "rain sensor" })).toMatchObject({ type: "ack" });
    expect(await entryAt(owner, first.id, "safety_event")).toBe(unsafeAt);
    await expectMovedExactlyAtBoundary(owner, observationId, unsafeAt);
    // Taken while it was away (here: unsafe, then gone): its next hello is told cancel.
    await disconnect(owner, socket, first.id);
    const back = await plugin(key);
    expect(cancelsHeard(back, observationId)).toBe(1);
  });

  it("counts a never-connected observatory from its creation by the server's clock, however far the database's is from it", async () => {
    clock = controlServerClock(server, Date.now() + 30 * 24 * 60 * MINUTE);
    const createdAt = clock.now();
    const owner = await createAccount(server);
    const { assignedByOperatorWithCandidates } = await network(owner);
    const observationId = await assignedByOperatorWithCandidates();
    await expectMovedExactlyAtBoundary(owner, observationId, createdAt);
  });

  it("moves it once when two sweeps run at once", async () => {
    clock = controlServerClock(server, Date.now());
    const owner = await createAccount(server);
    const { first, key, submit } = await network(owner);
    const socket = await plugin(key);
    const observationId = await submit({ candidates: true });
    expect(await socket.ask({ type: "safety", safe: false })).toMatchObject({ type: "ack" });
    clock.set((await entryAt(owner, first.id, "safety_event")) + REASSIGN_AFTER);
    // Both sweeps find it assigned and stop at its row; let go, one moves it and the other finds it moved.
    const hold = await holdRows(server.databaseUrl, `select id from observations where id = '${observationId}' for update`);
    const sweeps = Promise.all([sweep(), sweep()]);
    try {
      await until("both sweeps at the observation's row", async () => (await lockWaiters(deps().sql)) === 2);
    } finally {
      await hold.release();
    }
    expect((await sweeps).flat()).toEqual([observationId]);
    const moves = (await historyOf(owner, observationId)).filter((entry) => entry.reason === "observatory unavailable");
    expect(moves).toHaveLength(1);
    expect((await observatoryHistory(owner, first.id)).filter((entry) => entry.type === "observation_reassigned")).toHaveLength(1);
    await until("the cancel", async () => cancelsHeard(socket, observationId) === 1);
  });
});
