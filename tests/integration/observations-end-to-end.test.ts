import { createHash, randomUUID } from "node:crypto";
import { endMaintenance } from "@meridian/domain/system";
import { ObservatorySimulator } from "@meridian/simulator";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";
import { openWebSocket, type OpenClient } from "../support/ws-client";

const ADMIN = { email: "observations-admin@example.com", password: "observations admin password" };
let server: TestServer;
const closers: Array<() => Promise<unknown>> = [];
beforeAll(async () => {
  // The worker runs in the server process: dispatch is a job.
  ({ server } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all" }));
});
afterAll(async () => {
  for (const close of closers) await close().catch(() => undefined);
  await server?.stop();
});
const { must } = jsonApi(() => server);

export const exposure = { filter: "R", exposureSeconds: 0.01, count: 1, binning: 1 };
export const target = { name: "M 31", ra: 10.6847, dec: 41.269, epoch: "J2000", exposures: [exposure] };

/** An observatory without a location (no darkness rule), a project, and a key for the simulator. */
async function network(owner: Account) {
  const observatory = (await must("/observatories", { method: "POST", token: owner.token, json: { name: `Scope ${randomUUID().slice(0, 6)}` } }, 201)) as {
    id: string;
  };
  const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: `Survey ${randomUUID().slice(0, 6)}` } }, 201)) as {
    id: string;
  };
  const key = (await must(`/observatories/${observatory.id}/api-keys`, { method: "POST", token: owner.token, json: { name: "simulator" } }, 201)) as {
    key: string;
    id: string;
  };
  return { observatory, project, key };
}

async function simulatorFor(key: string) {
  const simulator = new ObservatorySimulator({ url: server.url, key, speed: 1000, imageBytes: 300_000 });
  closers.push(() => simulator.close());
  await simulator.connect();
  return simulator;
}

async function userSocket(token: string): Promise<OpenClient> {
  const socket = await openWebSocket(`${server.url.replace(/^http/, "ws")}/ws`, { authorization: `Bearer ${token}` });
  closers.push(() => socket.close());
  return socket;
}

describe("an observation from submission to its files, run by the simulator", () => {
  it("is assigned to the connected observatory, walks to completed with live events, and its files download intact", async () => {
    const owner = await createAccount(server);
    const stranger = await createAccount(server);
    const { observatory, project, key } = await network(owner);
    const ownerSocket = await userSocket(owner.token);
    const strangerSocket = await userSocket(stranger.token);
    const simulator = await simulatorFor(key.key);

    const created = (await must(
      "/observations",
      { method: "POST", token: owner.token, json: { name: "Andromeda", projectId: project.id, observatoryId: observatory.id, targets: [target] } },
      201,
    )) as { id: string; status: string; priority: number; constraints: { twilight: string; minAltitude: number } };
    expect(created).toMatchObject({ priority: 5, constraints: { twilight: "astronomical", minAltitude: 30 } });
    // Assigned in its own transaction when the observatory is free, else pending until the dispatch the simulator's hello
    // queued has run (dispatch-at-submission.test.ts): either way, both moves follow.
    expect(["pending", "assigned"]).toContain(created.status);

    const seen = (status: string) =>
      ownerSocket.waitFor(
        (message) =>
          message.type === "observation.status_changed" &&
          (message.data as { id: string; status: string }).id === created.id &&
          (message.data as { status: string }).status === status,
        `observation.status_changed to ${status}`,
      );
    for (const status of ["pending", "assigned", "in_progress", "acquisition_complete", "completed"]) await seen(status);
    const assign = simulator.received.find((message) => message.type === "assign") as { observation: { id: string } };
    expect(assign.observation.id).toBe(created.id);

    const history = (await must(`/observations/${created.id}/history`, { token: owner.token }, 200)) as {
      items: Array<{ from: string | null; to: string; actor: { kind: string; id: string } }>;
    };
    expect(history.items.map((entry) => [entry.from, entry.to, entry.actor.kind])).toEqual([
      [null, "pending", "user"],
      ["pending", "assigned", "system"],
      ["assigned", "in_progress", "observatory"],
      ["in_progress", "acquisition_complete", "observatory"],
      ["acquisition_complete", "completed", "observatory"],
    ]);
    expect(history.items[2]!.actor.id).toBe(observatory.id);

    const files = (await must(`/observations/${created.id}/files`, { token: owner.token }, 200)) as {
      items: Array<{ id: string; filename: string; sizeBytes: number; sha256: string; kind: string; previewOfId: string | null; contentType: string }>;
    };
    expect(files.items.map((file) => file.kind).sort()).toEqual(["image", "preview"]);
    const image = files.items.find((file) => file.kind === "image")!;
    const preview = files.items.find((file) => file.kind === "preview")!;
    expect(preview.previewOfId).toBe(image.id);
    expect(image).toMatchObject({ filename: "M 31.fits", sizeBytes: 300_000, contentType: "application/fits" });

    const download = await server.request(`/files/${image.id}/download`, { token: owner.token });
    expect(download.status).toBe(200);
    expect(download.headers.get("content-length")).toBe("300000");
    expect(download.headers.get("content-type")).toBe("application/fits");
    expect(download.headers.get("content-disposition")).toContain("attachment");
    const bytes = Buffer.from(await download.arrayBuffer());
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(image.sha256);

    // Nobody else heard of it or may read it.
    expect(strangerSocket.messages.some((message) => message.type === "observation.status_changed")).toBe(false);
    await expectProblem(await server.request(`/observations/${created.id}`, { token: stranger.token }), 404, "NOT_FOUND");
    await expectProblem(await server.request(`/files/${image.id}/download`, { token: stranger.token }), 404, "NOT_FOUND");
  });

  it("sends the observatory a cancel when a user cancels the observation it is running, and the cancel yields cancelled", async () => {
    const owner = await createAccount(server);
    const { observatory, project, key } = await network(owner);
    const simulator = new ObservatorySimulator({ url: server.url, key: key.key, speed: 0.001 });
    closers.push(() => simulator.close());
    await simulator.connect();
    const created = (await must(
      "/observations",
      { method: "POST", token: owner.token, json: { name: "Long one", projectId: project.id, observatoryId: observatory.id, targets: [target] } },
      201,
    )) as { id: string };
    await until(
      "in progress",
      async () => ((await must(`/observations/${created.id}`, { token: owner.token })) as { status: string }).status === "in_progress",
    );
    const cancelled = (await must(`/observations/${created.id}/cancel`, { method: "POST", token: owner.token, json: { reason: "clouds coming" } }, 200)) as {
      status: string;
      statusReason: string;
    };
    expect(cancelled).toMatchObject({ status: "cancelled", statusReason: "clouds coming" });
    await until("the cancel message", async () => simulator.received.some((message) => message.type === "cancel" && message.observationId === created.id));
    await expectProblem(await server.request(`/observations/${created.id}/cancel`, { method: "POST", token: owner.token }), 409, "INVALID_TRANSITION");
  });
});

describe("a status report the server refuses for now", () => {
  it("is sent again by the simulator when the server says: refused while a restore's maintenance holds writes, it lands once that ends", async () => {
    const owner = await createAccount(server);
    const { observatory, project } = await network(owner);
    const key = (await must(`/observatories/${observatory.id}/api-keys`, { method: "POST", token: owner.token, json: { name: "patient" } }, 201)) as {
      key: string;
    };
    const created = (await must(
      "/observations",
      { method: "POST", token: owner.token, json: { name: "Patient", projectId: project.id, observatoryId: observatory.id, targets: [target] } },
      201,
    )) as { id: string };
    const statusOf = async () => ((await must(`/observations/${created.id}`, { token: owner.token }, 200)) as { status: string }).status;
    const { db } = server.server.runtime.deps;
    await db.execute(sql`insert into maintenance (id, reason, job_id) values ('restore', 'a test holds writes', null)`);
    // The simulator waits out the pause the refusal asks for until the maintenance has ended, not the 30 s themselves.
    const pausesAsked: number[] = [];
    let maintenanceEnded!: () => void;
    const ended = new Promise<void>((resolve) => (maintenanceEnded = resolve));
    const pause = (ms: number) => {
      pausesAsked.push(ms);
      return ended;
    };
    try {
      const lines: string[] = [];
      const refusals: unknown[] = [];
      const simulator = new ObservatorySimulator({ url: server.url, key: key.key, speed: 1000, imageBytes: 1000, pause, log: (line) => lines.push(line) });
      closers.push(() => simulator.close());
      simulator.on("message", (message: { type: string }) => message.type === "error" && refusals.push(message));
      await simulator.connect();
      // Assigned on connecting (dispatch is not a request), then its first report is refused, with
      // the same 30 s HTTP's Retry-After gives, and the simulator pauses that long before it asks again.
      const waiting = await until("the in_progress report to be refused and kept", async () =>
        lines.find((line) => line.startsWith(`in_progress of ${created.id}:`) && / again in [\d.]+ s$/.test(line)),
      );
      expect(refusals).toEqual([expect.objectContaining({ code: "MAINTENANCE", retryAfter: 30 })]);
      expect(Number(/ again in ([\d.]+) s$/.exec(waiting)![1])).toBeGreaterThanOrEqual(30);
      expect(pausesAsked[0]).toBeGreaterThanOrEqual(30_000);
      expect(await statusOf()).toBe("assigned");
    } finally {
      await endMaintenance({ db });
      maintenanceEnded();
    }
    await until("the observation to complete", async () => (await statusOf()) === "completed", { timeoutMs: 90_000 });
  });
});
