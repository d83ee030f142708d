import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { controlServerClock, type TestClock } from "../support/test-clock";
import { startTestRuntime, type CallerAccount, type TestRuntime } from "../support/test-runtime";

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

// The scheduling rules behind the queue, the plan and the forecasts, through the app router's caller: no HTTP.
let runtime: TestRuntime;
let clock: TestClock;
let owner: CallerAccount;
beforeAll(async () => {
  runtime = await startTestRuntime({ env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password } });
  clock = controlServerClock(runtime, Date.parse(`${NIGHT}T12:00:00Z`));
  owner = await runtime.signup();
});
afterAll(async () => {
  await runtime?.stop();
});

async function observatoryAt(location: typeof LA_PALMA) {
  const observatory = await owner.caller.observatories.create({ name: `Edge ${randomUUID().slice(0, 6)}` });
  await owner.caller.observatories.update({ id: observatory.id, update: { location } });
  return observatory.id;
}
const projectId = async () => (await owner.caller.projects.create({ name: `Edge ${randomUUID().slice(0, 6)}` })).id;
const body = (fields: { projectId: string; observatoryId: string; ra: number; dec: number; seconds: number; minAltitude: number }) => ({
  name: `Edge ${randomUUID().slice(0, 6)}`,
  projectId: fields.projectId,
  observatoryId: fields.observatoryId,
  constraints: { minAltitude: fields.minAltitude, maxAirmass: null, moonDistance: null, twilight: "astronomical" as const },
  targets: [
    { name: "T", ra: fields.ra, dec: fields.dec, epoch: "J2000" as const, exposures: [{ filter: "L", exposureSeconds: fields.seconds, count: 1, binning: 1 }] },
  ],
});
const noneInThePast = (reasons: Reason[]) => {
  for (const reason of reasons) if (reason.until) expect(Date.parse(reason.until)).toBeGreaterThanOrEqual(clock.now());
};

describe("a run that fits now but would not finish, and a target that never rises", () => {
  it("twenty minutes before dawn, a 27-minute run is WOULD_NOT_FINISH at dawn in the queue and Tonight, never NOT_DARK with a past until", async () => {
    const observatoryId = await observatoryAt(LA_PALMA);
    const plan = await owner.caller.observatories.plan({ id: observatoryId });
    const dawn = Date.parse(plan.night!.darkEnd!);
    clock.set(dawn - 20 * MINUTE);
    // Circumpolar and always above 10° here: only the darkness can stop it. 120 s slew + 1500 s + 10 s readout.
    const created = await owner.caller.observations.create(
      body({ projectId: await projectId(), observatoryId, ra: 150, dec: 80, seconds: 1500, minAltitude: 10 }),
    );
    const queue = await owner.caller.observatories.queue({ id: observatoryId });
    // Dark now, as the page's Darkness card says.
    expect(Date.parse(queue.darkness!.start!)).toBeLessThan(clock.now());
    const item = queue.items.find((entry) => entry.observation.id === created.id)!;
    expect(item.reasons.map((reason: Reason) => [reason.code, reason.limit])).toEqual([
      ["WOULD_NOT_FINISH", "darkness"],
      ["OFFLINE", undefined],
    ]);
    expect(item.blockedBy).toEqual(item.reasons[0]);
    const blockedBy = item.blockedBy as Reason;
    expect(Math.abs(Date.parse(blockedBy.at!) - Date.parse(queue.darkness!.end!))).toBeLessThan(1000);
    noneInThePast(item.reasons);
    // The next moment it fits whole is the next night's darkness.
    const nextNight = await owner.caller.observatories.plan({ id: observatoryId, night: "2026-12-11" });
    expect(blockedBy.until).toBe(new Date(Math.ceil(Date.parse(nextNight.night!.darkStart!) / MINUTE) * MINUTE).toISOString());

    const tonight = await owner.caller.observatories.plan({ id: observatoryId });
    const unscheduled = tonight.unscheduled.find((entry) => entry.observationId === created.id)!;
    expect(unscheduled.blockedBy).toMatchObject({ code: "WOULD_NOT_FINISH", limit: "darkness", until: blockedBy.until });
    // The forecast finds it the next night.
    const forecast = await owner.caller.observations.forecast({ id: created.id });
    expect(forecast).toMatchObject({ expectedStart: blockedBy.until, blockedBy: null });
  });

  it("says Vega never rises above 30° from 30.5° south, with its highest altitude, in the wizard's forecast and the queue", async () => {
    const observatoryId = await observatoryAt(SOUTH);
    const json = body({ projectId: await projectId(), observatoryId, ra: 279.2347, dec: 38.7837, seconds: 300, minAltitude: 30 });
    const draft = await owner.caller.observations.forecastDraft(json);
    expect(draft).toMatchObject({ expectedStart: null, blockedBy: { code: "TARGET_NOT_VISIBLE", until: null } });
    const highestAltitude = (draft.blockedBy as Reason).highestAltitude!;
    expect(Math.round(highestAltitude)).toBe(21);
    const created = await owner.caller.observations.create(json);
    const queue = await owner.caller.observatories.queue({ id: observatoryId });
    const item = queue.items.find((entry) => entry.observation.id === created.id)!;
    const never = item.reasons.find((reason: Reason) => reason.code === "TARGET_NOT_VISIBLE");
    expect(never).toEqual({ code: "TARGET_NOT_VISIBLE", until: null, highestAltitude });
    noneInThePast(item.reasons);
  });

  it("says a window that lies wholly in daylight has no darkness in it", async () => {
    const observatoryId = await observatoryAt(LA_PALMA);
    // Noon to two o'clock, La Palma time (UTC in winter), on the day after the clock's.
    const day = new Date(clock.now() + 86_400_000).toISOString().slice(0, 10);
    const json = {
      ...body({ projectId: await projectId(), observatoryId, ra: 150, dec: 80, seconds: 300, minAltitude: 10 }),
      type: "fixed_time" as const,
      fixedTimeStart: `${day}T12:00:00.000Z`,
      fixedTimeEnd: `${day}T14:00:00.000Z`,
    };
    const draft = await owner.caller.observations.forecastDraft(json);
    expect(draft.blockedBy).toEqual({ code: "NOT_DARK", until: null, windowInDaylight: true });
  });
});
