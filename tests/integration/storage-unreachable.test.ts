import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createAccount, expectProblem } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { observationWithKey } from "../support/observatory-keys";
import { startS3Proxy, type S3Proxy } from "../support/s3-proxy";
import type { TestServer } from "../support/test-server";

/**
 * The object store out of reach while the database is fine: what needs the store is refused for now
 * (503 SERVICE_UNAVAILABLE with Retry-After) naming the store, never the database.
 */

const ADMIN = { email: "storage-unreachable-admin@example.com", password: "storage unreachable admin password" };
let proxy: S3Proxy;
let server: TestServer;
beforeAll(async () => {
  // The real embedded store behind a proxy of this file's own, closed to cut the store off.
  proxy = await startS3Proxy(inject("s3Endpoint"));
  ({ server } = await startServerWithAdmin(ADMIN, { S3_ENDPOINT: proxy.url }));
});
afterAll(async () => {
  await server?.stop();
  await proxy?.close();
});
const { must } = jsonApi(() => server);

describe("a download while the object store is unreachable", () => {
  it("answers 503 SERVICE_UNAVAILABLE with Retry-After, saying the file storage is unavailable, not the database", async () => {
    const owner = await createAccount(server);
    const { key, observation } = await observationWithKey(must, {
      owner,
      project: "Cut off",
      observation: {
        name: "Cut off",
        targets: [{ name: "Vega", ra: 279.23, dec: 38.78, exposures: [{ filter: "V", exposureSeconds: 1, count: 1, binning: 1 }] }],
      },
    });
    const uploaded = await server.request(`/observations/${observation.id}/files?filename=frame.fits`, {
      method: "POST",
      token: key,
      headers: { "content-type": "application/octet-stream" },
      body: Buffer.alloc(1000, 3),
    });
    expect(uploaded.status).toBe(201);
    const file = (await uploaded.json()) as { id: string };
    expect((await server.request(`/files/${file.id}/download`, { token: owner.token })).status).toBe(200);

    await proxy.close();
    const refused = await server.request(`/files/${file.id}/download`, { token: owner.token });
    const problem = await expectProblem(refused, 503, "SERVICE_UNAVAILABLE");
    expect(problem.detail).toMatch(/^The file storage is unavailable/);
    expect(problem.detail).not.toMatch(/database/i);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    // The database still answers: the file's record is there.
    expect((await must(`/observations/${observation.id}/files`, { token: owner.token }, 200)).items).toHaveLength(1);
  });
});

describe("an upload while the object store is unreachable", () => {
  it("answers 503 SERVICE_UNAVAILABLE with Retry-After, naming the object storage; nothing is recorded", async () => {
    const owner = await createAccount(server);
    const { key, observation } = await observationWithKey(must, {
      owner,
      project: "Cut off uploads",
      observation: {
        name: "Cut off upload",
        targets: [{ name: "Vega", ra: 279.23, dec: 38.78, exposures: [{ filter: "V", exposureSeconds: 1, count: 1, binning: 1 }] }],
      },
    });
    await proxy.close();
    const refused = await server.request(`/observations/${observation.id}/files?filename=frame.fits`, {
      method: "POST",
      token: key,
      headers: { "content-type": "application/octet-stream" },
      body: Buffer.alloc(1000, 3),
    });
    const problem = await expectProblem(refused, 503, "SERVICE_UNAVAILABLE");
    expect(problem.detail).toMatch(/storage/i);
    expect(problem.detail).not.toMatch(/database/i);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await must(`/observations/${observation.id}/files`, { token: owner.token }, 200)).items).toHaveLength(0);
  });
});
