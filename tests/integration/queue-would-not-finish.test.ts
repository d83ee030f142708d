import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { controlServerClock, type TestClock } from "../support/test-clock";
import type { TestServer } from "../support/test-server";

const ADMIN = { email: "would-not-finish-admin@example.com", password: "would not finish admin password" };
const LA_PALMA = { latitude: 28.7606, longitude: -17.8792, elevation: 2396 };
// 30.5° south, where Vega never stands higher than 21°.
const SOUTH = { latitude: -30.5, longitude: -70.8, elevation: 2200 };
const NIGHT = "2026-12-10";
const MINUTE = 60_000;

interface Reason {
  code: string;
  until: string | null;
  limit?: string;
  at?: string;
  highestAltitude?: number;
  windowInDaylight?: boolean;
}

let server: TestServer;
let clock: TestClock;
let owner: Account;
beforeAll(async () => {
  ({ server } = await startServerWithAdmin(ADMIN));
  clock = controlServerClock(server, Date.parse(`${NIGHT}T12:00:00Z`));
  owner = await createAccount(server);
});
afterAll(async () => {
  await server?.stop();
});
const { must } = jsonApi(() => server);

async function observatoryAt(location: typeof LA_PALMA) {
  const observatory = await must("/observatories", { method: "POST", token: owner.token, json: { name: `Edge ${randomUUID().slice(0, 6)}` } }, 201);
  await must(`/observatories/${observatory.id}`, { method: "PUT", token: owner.token, json: { location } }, 200);
  return observatory.id as string;
}
const projectId = async () =>
  (await must("/projects", { method: "POST", token: owner.token, json: { name: `Edge ${randomUUID().slice(0, 6)}` } }, 201)).id as string;
const body = (fields: { projectId: string; observatoryId: string; ra: number; dec: number; seconds: number; minAltitude: number }) => ({
  name: `Edge ${randomUUID().slice(0, 6)}`,
  projectId: fields.projectId,
  observatoryId: fields.observatoryId,
  constraints: { minAltitude: fields.minAltitude, maxAirmass: null, moonDistance: null, twilight: "astronomical" },
  targets: [{ name: "T", ra: fields.ra, dec: fields.dec, epoch: "J2000", exposures: [{ filter: "L", exposureSeconds: fields.seconds, count: 1, binning: 1 }] }],
});
const noneInThePast = (reasons: Reason[]) => {
  for (const reason of reasons) if (reason.until) expect(Date.parse(reason.until)).toBeGreaterThanOrEqual(clock.now());
};

describe("a run that fits now but would not finish, and a target that never rises", () => {
  it("twenty minutes before dawn, a 27-minute run is WOULD_NOT_FINISH at dawn in the queue and Tonight, never NOT_DARK with a past until", async () => {
    const observatoryId = await observatoryAt(LA_PALMA);
    const plan = await must(`/observatories/${observatoryId}/plan`, { token: owner.token });
    const dawn = Date.parse(plan.night.darkEnd);
    clock.set(dawn - 20 * MINUTE);
    // Circumpolar and always above 10° here: only the darkness can stop it. 120 s slew + 1500 s + 10 s readout.
    const created = await must("/observations", {
      method: "POST",
      token: owner.token,
      json: body({ projectId: await projectId(), observatoryId, ra: 150, dec: 80, seconds: 1500, minAltitude: 10 }),
    });
    const queue = await must(`/observatories/${observatoryId}/queue`, { token: owner.token });
    // Dark now, as the page's Darkness card says.
    expect(Date.parse(queue.darkness.start)).toBeLessThan(clock.now());
    const item = queue.items.find((entry: { observation: { id: string } }) => entry.observation.id === created.id);
    expect(item.reasons.map((reason: Reason) => [reason.code, reason.limit])).toEqual([
      ["WOULD_NOT_FINISH", "darkness"],
      ["OFFLINE", undefined],
    ]);
    expect(item.blockedBy).toEqual(item.reasons[0]);
    expect(Math.abs(Date.parse(item.blockedBy.at) - Date.parse(queue.darkness.end))).toBeLessThan(1000);
    noneInThePast(item.reasons);
    // The next moment it fits whole is the next night's darkness.
    const nextNight = await must(`/observatories/${observatoryId}/plan?night=2026-12-11`, { token: owner.token });
    expect(item.blockedBy.until).toBe(new Date(Math.ceil(Date.parse(nextNight.night.darkStart) / MINUTE) * MINUTE).toISOString());

    const tonight = await must(`/observatories/${observatoryId}/plan`, { token: owner.token });
    const unscheduled = tonight.unscheduled.find((entry: { observationId: string }) => entry.observationId === created.id);
    expect(unscheduled.blockedBy).toMatchObject({ code: "WOULD_NOT_FINISH", limit: "darkness", until: item.blockedBy.until });
    // The forecast finds it the next night.
    const forecast = await must(`/observations/${created.id}/forecast`, { token: owner.token });
    expect(forecast).toMatchObject({ expectedStart: item.blockedBy.until, blockedBy: null });
  });

  it("says Vega never rises above 30° from 30.5° south, with its highest altitude, in the wizard's forecast and the queue", async () => {
    const observatoryId = await observatoryAt(SOUTH);
    const json = body({ projectId: await projectId(), observatoryId, ra: 279.2347, dec: 38.7837, seconds: 300, minAltitude: 30 });
    const draft = await must("/observations/forecast", { method: "POST", token: owner.token, json }, 200);
    expect(draft).toMatchObject({ expectedStart: null, blockedBy: { code: "TARGET_NOT_VISIBLE", until: null } });
    expect(Math.round(draft.blockedBy.highestAltitude)).toBe(21);
    const created = await must("/observations", { method: "POST", token: owner.token, json }, 201);
    const queue = await must(`/observatories/${observatoryId}/queue`, { token: owner.token });
    const item = queue.items.find((entry: { observation: { id: string } }) => entry.observation.id === created.id);
    const never = item.reasons.find((reason: Reason) => reason.code === "TARGET_NOT_VISIBLE");
    expect(never).toEqual({ code: "TARGET_NOT_VISIBLE", until: null, highestAltitude: draft.blockedBy.highestAltitude });
    noneInThePast(item.reasons);
  });

  it("says a window that lies wholly in daylight has no darkness in it", async () => {
    const observatoryId = await observatoryAt(LA_PALMA);
    // Noon to two o'clock, La Palma time (UTC in winter), on the day after the clock's.
    const day = new Date(clock.now() + 86_400_000).toISOString().slice(0, 10);
    const json = {
      ...body({ projectId: await projectId(), observatoryId, ra: 150, dec: 80, seconds: 300, minAltitude: 10 }),
      type: "fixed_time",
      fixedTimeStart: `${day}T12:00:00.000Z`,
      fixedTimeEnd: `${day}T14:00:00.000Z`,
    };
    const draft = await must("/observations/forecast", { method: "POST", token: owner.token, json }, 200);
    expect(draft.blockedBy).toEqual({ code: "NOT_DARK", until: null, windowInDaylight: true });
  });
});
