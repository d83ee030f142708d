import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import type { TestServer } from "../support/test-server";

// Observations that could never run are refused instead of waiting for ever.
const ADMIN = { email: "impossible-admin@example.com", password: "impossible admin password" };
let server: TestServer;
let adminToken: string;
let owner: Account;
let observatoryId: string;
let projectId: string;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
  owner = await createAccount(server);
  observatoryId = ((await must("/observatories", { method: "POST", token: owner.token, json: { name: "Real" } }, 201)) as { id: string }).id;
  projectId = ((await must("/projects", { method: "POST", token: adminToken, json: { name: "Admin's survey" } }, 201)) as { id: string }).id;
});
afterAll(() => server?.stop());
const { must, call } = jsonApi(() => server);

const target = { name: "Vega", ra: 279.23, dec: 38.78, exposures: [{ filter: "V", exposureSeconds: 30, count: 2, binning: 1 }] };
const body = (fields: Record<string, unknown> = {}) => ({ name: `Obs ${randomUUID().slice(0, 6)}`, projectId, observatoryId, targets: [target], ...fields });
const hoursFromNow = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

describe("an observation that could never run", () => {
  it("is refused with 404 for an observatory that does not exist, also to a server admin", async () => {
    const response = await server.request("/observations", { method: "POST", token: adminToken, json: body({ observatoryId: "obs_does_not_exist" }) });
    await expectProblem(response, 404, "NOT_FOUND");
    // Nothing was stored.
    const listed = (await must("/observations", { token: adminToken }, 200)) as { items: unknown[] };
    expect(listed.items).toEqual([]);
    // The admin's other reads of it answer 404 as well, never a made-up observatory.
    await expectProblem(await server.request("/observatories/obs_does_not_exist", { token: adminToken }), 404, "NOT_FOUND");
    await expectProblem(await server.request("/observatories/obs_does_not_exist/queue", { token: adminToken }), 404, "NOT_FOUND");
  });

  it("is refused with 400 when its fixed-time window has already closed, on creation and on edit", async () => {
    const closed = await call("/observations", {
      method: "POST",
      token: adminToken,
      json: body({ type: "fixed_time", fixedTimeStart: hoursFromNow(-3), fixedTimeEnd: hoursFromNow(-1) }),
    });
    expect(closed.status).toBe(400);
    expect(closed.body).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ path: "fixedTimeEnd", message: expect.stringContaining("lies in the past") }] });

    // A window that opened already but is still open is fine.
    const open = (await must(
      "/observations",
      { method: "POST", token: adminToken, json: body({ type: "fixed_time", fixedTimeStart: hoursFromNow(-1), fixedTimeEnd: hoursFromNow(2) }) },
      201,
    )) as { id: string };
    const edited = await call(`/observations/${open.id}`, {
      method: "PUT",
      token: adminToken,
      json: { fixedTimeStart: hoursFromNow(-3), fixedTimeEnd: hoursFromNow(-2) },
    });
    expect(edited.status).toBe(400);
    expect(edited.body).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ path: "fixedTimeEnd" }] });
    expect(await must(`/observations/${open.id}`, { token: adminToken }, 200)).toMatchObject({ fixedTimeEnd: expect.any(String), status: "pending" });
  });
});
