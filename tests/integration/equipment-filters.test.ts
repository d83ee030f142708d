import { randomBytes } from "node:crypto";
import type { EquipmentReport } from "@meridian/observatory-client";
import { ObservatorySimulator } from "@meridian/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcData, trpcErrorCode } from "../support/json-api";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

// The filters a plugin reports (`equipment.filters`): dispatch, the queue, the night plan and the forecast hold back an observation
// asking for one the observatory lacks (FILTER_MISSING), and a submission to it alone is refused (FILTER_NOT_AVAILABLE).
const ADMIN = { email: "filters-admin@example.com", password: "filters admin password" };
const LRGB = ["L", "R", "G", "B"];

let server: TestServer;
let owner: Account;
const closers: Array<() => Promise<unknown>> = [];
beforeAll(async () => {
  ({ server } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all" }));
  owner = await createAccount(server);
});
afterAll(async () => {
  for (const close of closers) await close().catch(() => undefined);
  await server?.stop();
});
const { must, call } = jsonApi(() => server);
const tag = () => randomBytes(3).toString("hex");

interface Observation {
  id: string;
  status: string;
}
interface ObservatoryRead {
  id: string;
  name: string;
  filters: string[] | null;
}
interface Reason {
  code: string;
  until: string | null;
}

/** An observatory without a location (nothing waits for darkness), a project, and a plugin to connect whose exposures last until the test ends them. */
async function setting() {
  const name = `Filters ${tag()}`;
  const observatory = (await must("/observatories", { method: "POST", token: owner.token, json: { name } }, 201)) as ObservatoryRead;
  const project = (await must("/projects", { method: "POST", token: owner.token, json: { name } }, 201)) as { id: string };
  const key = (
    (await must(`/observatories/${observatory.id}/api-keys`, { method: "POST", token: owner.token, json: { name: "plugin" } }, 201)) as { key: string }
  ).key;
  const endings: Array<() => void> = [];
  const connect = async (equipment: EquipmentReport) => {
    const simulator = new ObservatorySimulator({ url: server.url, key, equipment, sleep: () => new Promise<void>((resolve) => endings.push(resolve)) });
    closers.push(() => simulator.close());
    await simulator.connect();
    return simulator;
  };
  const body = (label: string, filters: string[], priority = 5) => ({
    name: label,
    projectId: project.id,
    observatoryId: observatory.id,
    priority,
    targets: [{ name: label, ra: 10, dec: 20, exposures: filters.map((filter) => ({ filter, exposureSeconds: 60, count: 1, binning: 1 })) }],
  });
  const observe = async (label: string, filters: string[], priority?: number) =>
    (await must("/observations", { method: "POST", token: owner.token, json: body(label, filters, priority) }, 201)) as Observation;
  const read = async () => (await must(`/observatories/${observatory.id}`, { token: owner.token })) as ObservatoryRead;
  const statusOf = (id: string, status: string) =>
    until(`${id} to be ${status}`, async () => ((await must(`/observations/${id}`, { token: owner.token })) as Observation).status === status);
  const endExposure = async () => {
    await until("the plugin to be exposing", async () => endings.length > 0);
    endings.shift()!();
  };
  return { name, observatory, project, connect, body, observe, read, statusOf, endExposure };
}

describe("a plugin's reported filters hold back what its observatory lacks", () => {
  it("does not assign an Hα observation to a plugin reporting L, R, G, B: the queue, the plan and the forecast say FILTER_MISSING", async () => {
    const s = await setting();
    // Before its plugin ever reported filters, nothing restricts one: the submission is taken.
    const ha = await s.observe("Ha first", ["Ha"], 10);
    expect((await s.read()).filters).toBeNull();
    const simulator = await s.connect({ camera: "Test CCD", filters: LRGB });
    const luminance = await s.observe("Luminance after", ["l"], 1);
    await s.statusOf(luminance.id, "in_progress");
    expect(simulator.observationInHand).toBe(luminance.id);
    expect(simulator.received.filter((message) => message.type === "assign").map((message) => message.observation.id)).toEqual([luminance.id]);
    expect(((await must(`/observations/${ha.id}`, { token: owner.token })) as Observation).status).toBe("pending");

    const queue = (await must(`/observatories/${s.observatory.id}/queue`, { token: owner.token })) as {
      items: Array<{ observation: { id: string }; eligible: boolean; blockedBy: Reason | null; reasons: Reason[] }>;
    };
    const held = queue.items.find((item) => item.observation.id === ha.id)!;
    expect(held).toMatchObject({ eligible: false, blockedBy: { code: "FILTER_MISSING", until: null } });
    expect(held.reasons.map((reason) => reason.code)).toEqual(["FILTER_MISSING", "OBSERVATORY_BUSY"]);
    // The night plan is the network plan's: it lists the Hα observation once a plan made after its submission is in force.
    const plan = await until("the night plan to list the Hα observation", async () => {
      const read = (await must(`/observatories/${s.observatory.id}/plan`, { token: owner.token })) as {
        slots: Array<{ observationId: string }>;
        unscheduled: Array<{ observationId: string; blockedBy: Reason }>;
      };
      return read.unscheduled.some((item) => item.observationId === ha.id) ? read : undefined;
    });
    expect(plan.slots.map((slot) => slot.observationId)).toEqual([luminance.id]);
    expect(plan.unscheduled).toEqual([expect.objectContaining({ observationId: ha.id, blockedBy: { code: "FILTER_MISSING", until: null } })]);
    const forecast = (await must(`/observations/${ha.id}/forecast`, { token: owner.token })) as { expectedStart: string | null; blockedBy: Reason };
    expect(forecast).toMatchObject({ expectedStart: null, blockedBy: { code: "FILTER_MISSING", until: null } });
    // The network plan, made after the submission above, places it nowhere: FILTER_MISSING at its observatory.
    const networkPlan = await until("the network plan to hold the Hα observation", async () => {
      const read = (await must(`/network/plan?observatoryIds=${s.observatory.id}`, { token: owner.token })) as {
        slots: Array<{ observationId: string }>;
        unscheduled: Array<{ observationId: string; reasons: Array<{ observatoryId: string; code: string }> }>;
      };
      return [...read.slots, ...read.unscheduled].some((item) => item.observationId === ha.id) ? read : undefined;
    });
    expect(networkPlan.slots.map((slot) => slot.observationId)).not.toContain(ha.id);
    expect(networkPlan.unscheduled.find((item) => item.observationId === ha.id)?.reasons).toEqual([
      expect.objectContaining({ observatoryId: s.observatory.id, code: "FILTER_MISSING" }),
    ]);

    // Hα goes into the wheel: the next report says so, and the observation runs once the observatory is free.
    await simulator.config({ equipment: { camera: "Test CCD", filters: [...LRGB, "Ha"] } });
    expect((await s.read()).filters).toEqual([...LRGB, "Ha"]);
    await s.endExposure();
    await s.statusOf(luminance.id, "completed");
    await s.statusOf(ha.id, "in_progress");
    expect(simulator.observationInHand).toBe(ha.id);
  });

  it("shows the filters on the observatory's read shape, REST and tRPC; the last report wins, and a bad one changes nothing", async () => {
    const s = await setting();
    const simulator = await s.connect({ camera: "Test CCD", filters: [" L ", "R", "G", "B"] });
    // Trimmed, as the protocol's schema takes them.
    expect((await s.read()).filters).toEqual(LRGB);
    const input = encodeURIComponent(JSON.stringify({ id: s.observatory.id }));
    expect((await trpcData<ObservatoryRead>(await server.request(`/trpc/observatories.get?input=${input}`, { token: owner.token }))).filters).toEqual(LRGB);
    const listed = (await must("/observatories", { token: owner.token })) as { items: ObservatoryRead[] };
    expect(listed.items.find((item) => item.id === s.observatory.id)?.filters).toEqual(LRGB);

    for (const filters of [["L", "l"], [], ["x".repeat(41)], "L,R"])
      await expect(simulator.config({ equipment: { filters } as unknown as EquipmentReport }), JSON.stringify(filters)).rejects.toMatchObject({
        code: "VALIDATION_FAILED",
      });
    expect((await s.read()).filters).toEqual(LRGB);
    // An equipment report without filters lifts the restriction.
    await simulator.config({ equipment: { camera: "Test CCD" } });
    expect((await s.read()).filters).toBeNull();
    await s.observe("Anything goes", ["V"]);
  });
});

describe("a submission asking for a filter its observatory lacks (FILTER_NOT_AVAILABLE)", () => {
  it("is refused at each exposure's filter, on both faces, naming the observatory and the filter; any case of a reported one is taken", async () => {
    const s = await setting();
    await s.connect({ filters: LRGB });
    const refused = await expectProblem(
      await server.request("/observations", { method: "POST", token: owner.token, json: s.body("Narrowband", ["L", "Ha", "OIII"]) }),
      400,
      "FILTER_NOT_AVAILABLE",
    );
    expect(refused.errors!.map((error) => error.path)).toEqual(["targets.0.exposures.1.filter", "targets.0.exposures.2.filter"]);
    expect(refused.errors![0]!.message).toBe(`${s.name} has no “Ha” filter: choose one of L, R, G, B.`);
    expect(refused.detail).toContain(s.name);
    const viaTrpc = await server.request("/trpc/observations.create", { method: "POST", token: owner.token, json: s.body("Narrowband", ["Ha"]) });
    expect(viaTrpc.status).toBe(400);
    expect(await trpcErrorCode(viaTrpc)).toBe("FILTER_NOT_AVAILABLE");
    await s.observe("Colour", ["l", "r", "G", "b"]);
  });

  it("is refused on a clone, and on an edit of a waiting observation's targets or observatory, while an edit that leaves both is not", async () => {
    const s = await setting();
    // Submitted before the plugin reported filters, and still waiting (dispatch is off).
    await must(`/observatories/${s.observatory.id}`, { method: "PUT", token: owner.token, json: { dispatchEnabled: false } }, 200);
    const early = await s.observe("Early Ha", ["Ha"]);
    await s.connect({ filters: LRGB });
    await until("the filters to be stored", async () => (await s.read()).filters !== null);

    await expectProblem(await server.request(`/observations/${early.id}/clone`, { method: "POST", token: owner.token }), 400, "FILTER_NOT_AVAILABLE");
    const overridden = await call(`/observations/${early.id}/clone`, {
      method: "POST",
      token: owner.token,
      json: { targets: [{ name: "Early", ra: 10, dec: 20, exposures: [{ filter: "G", exposureSeconds: 60, count: 1, binning: 1 }] }] },
    });
    expect(overridden.status).toBe(201);

    const edit = (json: unknown) => server.request(`/observations/${early.id}`, { method: "PUT", token: owner.token, json });
    const refused = await expectProblem(
      await edit({ targets: [{ name: "Early", ra: 10, dec: 20, exposures: [{ filter: "SII", exposureSeconds: 60, count: 1, binning: 1 }] }] }),
      400,
      "FILTER_NOT_AVAILABLE",
    );
    expect(refused.errors).toEqual([{ path: "targets.0.exposures.0.filter", message: `${s.name} has no “SII” filter: choose one of L, R, G, B.` }]);
    expect((await edit({ priority: 3 })).status).toBe(200);
    // Moved to another observatory, it is judged there as a submission to it would be.
    const elsewhere = await setting();
    await elsewhere.connect({ filters: LRGB });
    await until("the other's filters to be stored", async () => (await elsewhere.read()).filters !== null);
    const moved = await expectProblem(await edit({ observatoryId: elsewhere.observatory.id }), 400, "FILTER_NOT_AVAILABLE");
    expect(moved.errors).toEqual([{ path: "targets.0.exposures.0.filter", message: `${elsewhere.name} has no “Ha” filter: choose one of L, R, G, B.` }]);
    await must(`/observations/${early.id}/pause`, { method: "POST", token: owner.token }, 200);
    await expectProblem(
      await edit({ targets: [{ name: "Early", ra: 10, dec: 20, exposures: [{ filter: "Ha", exposureSeconds: 60, count: 1, binning: 1 }] }] }),
      400,
      "FILTER_NOT_AVAILABLE",
    );
    expect(
      (await edit({ targets: [{ name: "Early", ra: 10, dec: 20, exposures: [{ filter: "b", exposureSeconds: 60, count: 1, binning: 1 }] }] })).status,
    ).toBe(200);
  });
});
