import { Readable } from "node:stream";
import { ObservatoryClient, type AssignedObservation } from "@meridian/observatory-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { observingNetwork } from "../support/observing-network";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

/**
 * `@meridian/observatory-client` as a plugin author would use it, with nothing of the simulator:
 * connect with a key, take an assignment, report its moves, stream its file, hear the server's
 * refusals and its `update_required`.
 */

const ADMIN = { email: "client-admin@example.com", password: "client admin password" };
let server: TestServer;
let adminToken: string;
let owner: Account;
const clients: ObservatoryClient[] = [];
const { must } = jsonApi(() => server);

beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all" }));
  owner = await createAccount(server);
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await server?.stop();
});

async function connectedPlugin() {
  const { observatory, project, key } = await observingNetwork(must, owner);
  const client = new ObservatoryClient({ url: server.url, key: key.key, pluginVersion: "4.0.0.0", reconnect: false, equipment: { camera: "ASI6200MM" } });
  clients.push(client);
  const hello = await client.connect();
  expect(hello.type).toBe("ack");
  return { client, observatory, project };
}

describe("the observatory client", () => {
  it("runs an assignment through to completed with a streamed file, as a plugin written on it alone would", async () => {
    const { client, observatory, project } = await connectedPlugin();
    const fileBytes = 3 * 1024 * 1024 + 17;
    client.on("assign", (observation: AssignedObservation) => {
      void (async () => {
        await client.reportStatus(observation.id, "in_progress");
        await client.reportStatus(observation.id, "acquisition_complete");
        // A camera's file arrives in pieces; the client streams them without holding the whole.
        const chunks = (function* () {
          for (let sent = 0; sent < fileBytes; sent += 256 * 1024) yield Buffer.alloc(Math.min(256 * 1024, fileBytes - sent), 7);
        })();
        await client.uploadFile({ observationId: observation.id, filename: "M31_L_300s.fits", contentType: "application/fits", body: Readable.from(chunks) });
        await client.reportStatus(observation.id, "completed");
      })();
    });
    const observation = await jsonApi(() => server).createObservation(owner, { projectId: project.id, observatoryId: observatory.id, name: "M31" });
    await until("the observation to complete", async () => {
      const current = (await must(`/observations/${observation.id}`, { token: owner.token }, 200)) as { status: string };
      return current.status === "completed" ? current : undefined;
    });
    const files = (await must(`/observations/${observation.id}/files`, { token: owner.token }, 200)) as {
      items: Array<{ filename: string; sizeBytes: number }>;
    };
    expect(files.items).toEqual([expect.objectContaining({ filename: "M31_L_300s.fits", sizeBytes: fileBytes })]);
  });

  it("rejects a message the server refuses with the server's code, and stays connected", async () => {
    const { client } = await connectedPlugin();
    await expect(client.reportStatus("obs_not_ours", "in_progress")).rejects.toMatchObject({ code: expect.stringMatching(/^[A-Z_]+$/) });
    expect((await client.send({ type: "heartbeat" })).type).toBe("ack");
  });

  it("hears update_required when the server's minimum rises above its version", async () => {
    const { client } = await connectedPlugin();
    const heard = new Promise<{ minimumPluginVersion: string }>((resolve) => client.once("update_required", resolve));
    await must("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { minimumPluginVersion: "9.0.0.0" } }, 200);
    try {
      expect((await heard).minimumPluginVersion).toBe("9.0.0.0");
    } finally {
      await must("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { minimumPluginVersion: null } }, 200);
    }
  });
});
