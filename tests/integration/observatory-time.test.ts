import { randomUUID } from "node:crypto";
import { observatoryDocSchema } from "@meridian/db";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcData } from "../support/json-api";
import type { TestServer } from "../support/test-server";

const ADMIN = { email: "observatory-time-admin@example.com", password: "observatory time admin password" };
let server: TestServer;
let owner: Account;
let viewer: Account;
let stranger: Account;
beforeAll(async () => {
  ({ server } = await startServerWithAdmin(ADMIN));
  [owner, viewer, stranger] = await Promise.all([createAccount(server), createAccount(server), createAccount(server)]);
});
afterAll(() => server?.stop());
const { must, createObservatory, addObservatoryMember } = jsonApi(() => server);

const laPalma = { latitude: 28.7606, longitude: -17.8792, elevation: 2396 };
const sidingSpring = { latitude: -31.2733, longitude: 149.0617, elevation: 1165 };

interface Observatory {
  id: string;
  timeZone: string;
  settings: { slewSeconds: number; readoutSeconds: number };
  location?: unknown;
}
const update = async (id: string, json: unknown) => (await must(`/observatories/${id}`, { method: "PUT", token: owner.token, json }, 200)) as Observatory;
const read = async (id: string) => (await must(`/observatories/${id}`, { token: owner.token }, 200)) as Observatory;

describe("an observatory's time zone", () => {
  it("is derived from its location (La Palma, Siding Spring), and is UTC without one", async () => {
    const observatory = await createObservatory(owner);
    expect(await read(observatory.id)).toMatchObject({ timeZone: "UTC" });
    expect(await update(observatory.id, { location: laPalma })).toMatchObject({ timeZone: "Atlantic/Canary" });
    expect(await update(observatory.id, { location: sidingSpring })).toMatchObject({ timeZone: "Australia/Sydney" });
    expect(await update(observatory.id, { location: null })).toMatchObject({ timeZone: "UTC" });
    // A zone that followed the location goes with the location's history entry.
    const history = (await must(`/observatories/${observatory.id}/history`, { token: owner.token }, 200)) as { items: Array<{ data: { changes?: object } }> };
    expect(Object.keys(history.items[0]!.data.changes!)).toEqual(["location"]);
    const created = (await must("/observatories", { method: "POST", token: owner.token, json: { name: "Roque", location: laPalma } }, 201)) as Observatory;
    expect(created).toMatchObject({ timeZone: "Atlantic/Canary" });
    const listed = (await must("/observatories", { token: owner.token }, 200)) as { items: Observatory[] };
    expect(listed.items.find((item) => item.id === created.id)).toMatchObject({ timeZone: "Atlantic/Canary" });
  });

  it("keeps a zone given explicitly until the location moves or it is given again", async () => {
    const observatory = await createObservatory(owner, { name: `Explicit ${randomUUID().slice(0, 6)}`, location: laPalma, timeZone: "Europe/Madrid" });
    expect(observatory).toMatchObject({ timeZone: "Europe/Madrid" });
    expect(await update(observatory.id, { name: "Renamed" })).toMatchObject({ timeZone: "Europe/Madrid" });
    // A form sends the location it shows; unchanged, it keeps the chosen zone.
    expect(await update(observatory.id, { location: laPalma })).toMatchObject({ timeZone: "Europe/Madrid" });
    expect(await update(observatory.id, { location: sidingSpring, timeZone: "Asia/Tokyo" })).toMatchObject({ timeZone: "Asia/Tokyo" });
    expect(await update(observatory.id, { location: laPalma })).toMatchObject({ timeZone: "Atlantic/Canary" });
    expect(await update(observatory.id, { timeZone: "america/santiago" })).toMatchObject({ timeZone: "America/Santiago" });
    // null asks for the derived zone again.
    expect(await update(observatory.id, { timeZone: null })).toMatchObject({ timeZone: "Atlantic/Canary" });
    const history = (await must(`/observatories/${observatory.id}/history`, { token: owner.token }, 200)) as {
      items: Array<{ type: string; data: { changes?: Record<string, { before: unknown; after: unknown }> } }>;
    };
    expect(history.items[0]).toMatchObject({
      type: "settings_changed",
      data: { changes: { timeZone: { before: "America/Santiago", after: "Atlantic/Canary" } } },
    });
  });

  it("refuses a name that is not an IANA time zone with a 400 naming the field", async () => {
    const observatory = await createObservatory(owner);
    for (const timeZone of ["Mars/Olympus_Mons", "+01:00", "", 42]) {
      const problem = await expectProblem(
        await server.request(`/observatories/${observatory.id}`, { method: "PUT", token: owner.token, json: { timeZone } }),
        400,
        "VALIDATION_FAILED",
      );
      expect(problem.errors?.[0]?.path).toBe("timeZone");
    }
    const problem = await expectProblem(
      await server.request(`/observatories/${observatory.id}`, { method: "PUT", token: owner.token, json: { timeZone: "Mars/Base" } }),
      400,
      "VALIDATION_FAILED",
    );
    expect(problem.errors).toEqual([{ path: "timeZone", message: "Time zone must be an IANA time zone name such as Atlantic/Canary or UTC." }]);
    await expectProblem(
      await server.request("/observatories", { method: "POST", token: owner.token, json: { name: "Nowhere", timeZone: "Nowhere/Land" } }),
      400,
      "VALIDATION_FAILED",
    );
    expect(await read(observatory.id)).toMatchObject({ timeZone: "UTC" });
  });

  it("reads as derived in a document stored before observatories had zones and settings, which still passes the structure check", async () => {
    const observatory = await createObservatory(owner, { name: `Old ${randomUUID().slice(0, 6)}`, location: sidingSpring });
    const db = server.server.runtime.deps.db;
    await db.execute(sql`update observatories set doc = doc - 'timeZone' - 'settings' where id = ${observatory.id}`);
    const [row] = await db.execute<{ doc: unknown }>(sql`select doc from observatories where id = ${observatory.id}`);
    expect(row!.doc).not.toHaveProperty("timeZone");
    expect(observatoryDocSchema.safeParse(row!.doc).success).toBe(true);
    expect(await read(observatory.id)).toMatchObject({ timeZone: "Australia/Sydney", settings: { slewSeconds: 120, readoutSeconds: 10 } });
    // A change that leaves the zone alone writes it as it read.
    expect(await update(observatory.id, { name: "Old but renamed" })).toMatchObject({ timeZone: "Australia/Sydney" });
  });

  it("is changed by can_admin only: 401 without credentials, 403 for a viewer, 404 for a stranger", async () => {
    const observatory = await createObservatory(owner);
    await addObservatoryMember(owner, observatory.id, viewer, { can_view: true, can_observe: true, can_operate: true });
    await expectProblem(await server.request(`/observatories/${observatory.id}`, { method: "PUT", json: { timeZone: "Mars/Base" } }), 401, "UNAUTHENTICATED");
    await expectProblem(
      await server.request(`/observatories/${observatory.id}`, { method: "PUT", token: viewer.token, json: { timeZone: "Europe/Madrid" } }),
      403,
      "FORBIDDEN",
    );
    await expectProblem(
      await server.request(`/observatories/${observatory.id}`, { method: "PUT", token: stranger.token, json: { settings: { slewSeconds: 5 } } }),
      404,
      "NOT_FOUND",
    );
    expect(await read(observatory.id)).toMatchObject({ timeZone: "UTC", settings: { slewSeconds: 120, readoutSeconds: 10 } });
  });
});

describe("an observatory's timing settings", () => {
  it("default to a 120 s slew and a 10 s readout, change one at a time, and are recorded in the history", async () => {
    const observatory = (await createObservatory(owner)) as unknown as Observatory;
    expect(observatory.settings).toEqual({ slewSeconds: 120, readoutSeconds: 10 });
    expect((await update(observatory.id, { settings: { slewSeconds: 45.5 } })).settings).toEqual({ slewSeconds: 45.5, readoutSeconds: 10 });
    expect((await update(observatory.id, { settings: { readoutSeconds: 0 } })).settings).toEqual({ slewSeconds: 45.5, readoutSeconds: 0 });
    const history = (await must(`/observatories/${observatory.id}/history`, { token: owner.token }, 200)) as { items: Array<{ data: unknown }> };
    expect(history.items[0]).toMatchObject({
      data: { changes: { settings: { before: { slewSeconds: 45.5, readoutSeconds: 10 }, after: { slewSeconds: 45.5, readoutSeconds: 0 } } } },
    });
    const viaTrpc = await server.request("/trpc/observatories.update", {
      method: "POST",
      token: owner.token,
      json: { id: observatory.id, update: { settings: { readoutSeconds: 3 } } },
    });
    expect(await trpcData(viaTrpc)).toMatchObject({ settings: { slewSeconds: 45.5, readoutSeconds: 3 } });
  });

  it.each<[string, unknown, string]>([
    ["a slew over an hour", { slewSeconds: 3601 }, "settings.slewSeconds"],
    ["a negative slew", { slewSeconds: -1 }, "settings.slewSeconds"],
    ["a readout over ten minutes", { readoutSeconds: 601 }, "settings.readoutSeconds"],
    ["a readout as text", { readoutSeconds: "10" }, "settings.readoutSeconds"],
    ["an unknown setting", { focusSeconds: 5 }, "settings.focusSeconds"],
  ])("refuses %s with 400", async (_, settings, path) => {
    const observatory = await createObservatory(owner);
    const problem = await expectProblem(
      await server.request(`/observatories/${observatory.id}`, { method: "PUT", token: owner.token, json: { settings } }),
      400,
      "VALIDATION_FAILED",
    );
    expect(problem.errors?.map((error) => error.path)).toEqual([path]);
  });
});

describe("estimatedSeconds of an observation", () => {
  const exposures = [
    { filter: "R", exposureSeconds: 60, count: 3, binning: 1 },
    { filter: "V", exposureSeconds: 30, count: 2, binning: 1 },
  ];
  const targets = [
    { name: "M 31", ra: 10.6847, dec: 41.269, exposures },
    { name: "M 33", ra: 23.4621, dec: 30.66, exposures: [{ filter: "L", exposureSeconds: 0.5, count: 4, binning: 2 }] },
  ];
  const formula = (slew: number, readout: number) => 2 * slew + 3 * (60 + readout) + 2 * (30 + readout) + 4 * (0.5 + readout);

  it("is slewSeconds per target + Σ count × (exposureSeconds + readoutSeconds), and follows a change of the settings in every read", async () => {
    const observatory = await createObservatory(owner);
    const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: `Estimates ${randomUUID().slice(0, 6)}` } }, 201)) as {
      id: string;
    };
    const created = (await must(
      "/observations",
      { method: "POST", token: owner.token, json: { name: "Two galaxies", projectId: project.id, observatoryId: observatory.id, targets } },
      201,
    )) as { id: string; estimatedSeconds: number };
    expect(created.estimatedSeconds).toBe(formula(120, 10));
    expect(created.estimatedSeconds).toBe(572);

    await update(observatory.id, { settings: { slewSeconds: 30, readoutSeconds: 2 } });
    const one = (await must(`/observations/${created.id}`, { token: owner.token }, 200)) as { estimatedSeconds: number };
    expect(one.estimatedSeconds).toBe(formula(30, 2));
    const page = (await must(`/observations?observatoryId=${observatory.id}`, { token: owner.token }, 200)) as {
      items: Array<{ id: string; estimatedSeconds: number }>;
    };
    expect(page.items.find((item) => item.id === created.id)?.estimatedSeconds).toBe(formula(30, 2));
    const queue = (await must(`/observatories/${observatory.id}/queue`, { token: owner.token }, 200)) as {
      items: Array<{ observation: { id: string; estimatedSeconds: number } }>;
    };
    expect(queue.items.find((item) => item.observation.id === created.id)?.observation.estimatedSeconds).toBe(formula(30, 2));
    const changed = (await must(`/observations/${created.id}`, { method: "PUT", token: owner.token, json: { targets: [targets[0]] } }, 200)) as {
      estimatedSeconds: number;
    };
    expect(changed.estimatedSeconds).toBe(30 + 3 * 62 + 2 * 32);
  });
});
