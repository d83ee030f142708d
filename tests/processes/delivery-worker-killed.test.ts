import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { isRunning, spawnEntry, terminate, waitForOutput, type NodeProcess } from "../support/node-process";
import { observationDeliveredToDropbox } from "../support/dropbox-delivery";
import { startDropboxReceiver } from "../support/storage-receivers";
import { sharedProcessEnv, type TestServer } from "../support/test-server";
import { until } from "../support/until";

const ADMIN = { email: "delivery-killed-admin@example.com", password: "delivery killed admin password" };
let server: TestServer;
let dropbox: Awaited<ReturnType<typeof startDropboxReceiver>>;
const workers: NodeProcess[] = [];
beforeAll(async () => {
  dropbox = await startDropboxReceiver();
  // HTTP only: deliveries are the work of the worker processes this test starts and kills.
  ({ server } = await startServerWithAdmin(ADMIN, { DROPBOX_API_URL: dropbox.url, DROPBOX_CONTENT_URL: dropbox.url }));
});
// Each test's attempts are run only by the workers it starts (and kills).
beforeEach(async () => {
  for (const worker of workers) if (isRunning(worker)) await terminate(worker, 30_000);
});
afterAll(async () => {
  for (const worker of workers) if (isRunning(worker)) await terminate(worker, 10_000);
  await server?.stop();
  await dropbox?.stop();
});
const { must } = jsonApi(() => server);

/** A worker process over the test server's database and storage, as `pnpm start:worker` runs it. */
async function startWorkerProcess(name: string) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-delivery-worker-"));
  const worker = spawnEntry(
    "worker",
    { ...sharedProcessEnv(server, dataDir), DROPBOX_API_URL: dropbox.url, DROPBOX_CONTENT_URL: dropbox.url, LOG_LEVEL: "info" },
    name,
  );
  workers.push(worker);
  await waitForOutput(worker, /Meridian worker running/);
  return worker;
}

interface Delivery {
  status: string;
  remotePath: string | null;
  attempts: number;
  error: string | null;
}

/** The file's delivery once it is no longer pending. */
const deliveryToEnd = (owner: Account, observationId: string, fileId: string) =>
  until(
    "the delivery to end",
    async () => {
      const files = (await must(`/observations/${observationId}/files`, { token: owner.token })) as { items: Array<{ id: string; deliveries: Delivery[] }> };
      const found = files.items.find((item) => item.id === fileId)?.deliveries[0];
      return found && found.status !== "pending" ? found : undefined;
    },
    { timeoutMs: 120_000 },
  );

async function uploadFile(observationId: string, key: string, bytes: Buffer) {
  const uploaded = await server.request(`/observations/${observationId}/files?filename=frame.fits`, {
    method: "POST",
    token: key,
    headers: { "content-type": "application/fits" },
    body: new Uint8Array(bytes),
  });
  expect(uploaded.status).toBe(201);
  return (await uploaded.json()) as { id: string };
}

describe("a delivery whose worker is killed (-9)", () => {
  it("is finished by another worker without a second copy, though the first one's upload had reached Dropbox", { timeout: 180_000 }, async () => {
    const { owner, observation, key } = await observationDeliveredToDropbox(server, "Killed");
    const doomed = await startWorkerProcess("doomed worker");
    dropbox.control.holdUploads = true;
    const bytes = randomBytes(20_000);
    const file = await uploadFile(observation.id, key, bytes);
    // The whole upload has reached Dropbox; the worker is killed before it hears the answer.
    await until("the upload to be held", async () => dropbox.held.length > 0);
    doomed.child.kill("SIGKILL");
    await doomed.exited;
    dropbox.control.holdUploads = false;
    for (const release of dropbox.held.splice(0)) release();
    const remote = `/Telescope/Killed/Killed (${observation.id})/frame.fits`;
    await until("the first copy to be stored", async () => dropbox.files.has(remote));

    await startWorkerProcess("second worker");
    const delivery = await deliveryToEnd(owner, observation.id, file.id);
    // The killed attempt counts: the second is the delivery's second attempt.
    expect(delivery).toMatchObject({ status: "delivered", remotePath: remote, attempts: 2 });
    expect([...dropbox.files.keys()].filter((name) => name.endsWith("frame.fits"))).toEqual([remote]);
    // The second worker's upload met the first's file (409 conflict, mode "add"): of the same size, it counts as delivered.
    expect(dropbox.requests.filter((request) => request.path === "/2/files/upload")).toHaveLength(2);
    expect(dropbox.files.get(remote)!.equals(bytes)).toBe(true);
  });
  it("ends failed, with its reason and the owner told, when every attempt is killed, and counts each", { timeout: 240_000 }, async () => {
    const { owner, observation, key } = await observationDeliveredToDropbox(server, "Killed");
    dropbox.control.holdUploads = true;
    try {
      const file = await uploadFile(observation.id, key, randomBytes(5_000));
      const uploadsBefore = dropbox.held.length;
      // graphile-worker's own retries (5) are for killed attempts: each is taken by a new worker and killed while its upload waits.
      for (let attempt = 1; attempt <= 5; attempt += 1) {
        const worker = await startWorkerProcess(`worker for killed attempt ${attempt}`);
        await until(`attempt ${attempt}'s upload to be held`, async () => dropbox.held.length === uploadsBefore + attempt, { timeoutMs: 60_000 });
        worker.child.kill("SIGKILL");
        await worker.exited;
      }
      // A last worker frees the fifth attempt's job, finds its attempts used up and ends the delivery.
      await startWorkerProcess("a worker left alone");
      const delivery = await deliveryToEnd(owner, observation.id, file.id);
      expect(delivery).toMatchObject({ status: "failed", attempts: 5, remotePath: null });
      expect(delivery.error).toContain("Every attempt (5 of 5) ended without finishing; the last: its worker stopped (killed or lost)");
      const told = await server.server.runtime.deps.db.execute<{ text: string }>(sql`
        select doc->>'text' as text from email_outbox where doc->>'to' = ${owner.email} and doc->>'subject' = 'frame.fits could not be delivered'`);
      expect(told).toHaveLength(1);
      expect(told[0]!.text).toContain("Every attempt (5 of 5) ended without finishing");
    } finally {
      dropbox.control.holdUploads = false;
      for (const release of dropbox.held.splice(0)) release();
    }
  });
});
