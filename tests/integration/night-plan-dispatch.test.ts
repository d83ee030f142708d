import { randomUUID } from "node:crypto";
import { dispatchObservatory } from "@meridian/domain/observations";
import { ObservatorySimulator } from "@meridian/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { controlServerClock, type TestClock } from "../support/test-clock";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

const ADMIN = { email: "night-plan-admin@example.com", password: "night plan admin password" };
// La Palma, the night that begins on 2026-12-10 (the observatory's zone is UTC, an hour from Atlantic/Canary's winter time at most).
const LA_PALMA = { latitude: 28.7606, longitude: -17.8792, elevation: 2396 };
const NIGHT = "2026-12-10";
const MINUTE = 60_000;
/**
 * The clock moves in steps no longer than this, and waits after each for the plugin to be seen: the
 * minute's sweep takes an observatory silent for the heartbeat timeout (set to an hour below) offline.
 * Each wait is at least the sightings' one-second batch, so the fewer steps the better.
 */
const CLOCK_STEP = 50 * MINUTE;

let server: TestServer;
let adminToken: string;
const closers: Array<() => Promise<unknown>> = [];
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all" }));
});
afterAll(async () => {
  for (const close of closers) await close().catch(() => undefined);
  await server?.stop();
});
const { must } = jsonApi(() => server);

interface Plan {
  date: string;
  night: { sunset: string; darkStart: string; darkEnd: string; sunrise: string };
  slots: Array<{ observationId: string; name: string; priority: number; status: string; start: string; end: string }>;
  unscheduled: Array<{ observationId: string; blockedBy: { code: string; until: string | null; highestAltitude?: number } }>;
  altitude: Array<{ observationId: string; target: { name: string; count: number }; minAltitude: number; points: Array<{ at: string; altitude: number }> }>;
}
interface Observation {
  id: string;
  status: string;
  statusChangedAt: string;
}

describe("the night plan, run forward against dispatch", () => {
  it("is what dispatch then does, with no surprises: the same observations, in the same order, at the same minutes", { timeout: 600_000 }, async () => {
    // Sightings come at most once a clock minute; the clock never jumps an hour past one.
    await must("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { heartbeatTimeoutSeconds: 3600 } }, 200);
    const owner = await createAccount(server);
    const observatory = await must("/observatories", { method: "POST", token: owner.token, json: { name: `Night ${randomUUID().slice(0, 6)}` } }, 201);
    await must(`/observatories/${observatory.id}`, { method: "PUT", token: owner.token, json: { location: LA_PALMA } }, 200);
    const project = await must("/projects", { method: "POST", token: owner.token, json: { name: `Night ${randomUUID().slice(0, 6)}` } }, 201);
    const key = (await must(`/observatories/${observatory.id}/api-keys`, { method: "POST", token: owner.token, json: { name: "simulator" } }, 201)).key;

    // Noon on the night's date, then half an hour before its sunset.
    const clock: TestClock = controlServerClock(server, Date.parse(`${NIGHT}T12:00:00Z`));
    const sunset = Date.parse(((await must(`/observatories/${observatory.id}/plan`, { token: owner.token })) as Plan).night.sunset);
    clock.set(sunset - 30 * MINUTE);

    const create = async (name: string, priority: number, ra: number, dec: number, seconds: number) => {
      const json = {
        name,
        projectId: project.id,
        observatoryId: observatory.id,
        priority,
        targets: [{ name, ra, dec, epoch: "J2000", exposures: [{ filter: "L", exposureSeconds: seconds, count: 1, binning: 1 }] }],
      };
      return (await must("/observations", { method: "POST", token: owner.token, json }, 201)).id as string;
    };
    // High at dusk in December; setting in the evening; up most of the night; rising after midnight; never above 30° here.
    await create("Overhead at dusk", 9, 345, 25, 1500);
    await create("Setting early", 8, 300, 5, 900);
    await create("Up all evening", 6, 40, 20, 2400);
    const lateRiser = await create("Rises late", 5, 165, 10, 1200);
    const never = await create("Never visible", 10, 100, -75, 600);

    const plan = (await must(`/observatories/${observatory.id}/plan`, { token: owner.token })) as Plan;
    expect(plan.date).toBe(NIGHT);
    // It culminates below the horizon here: the plan says how high it ever gets.
    expect(plan.unscheduled).toContainEqual(
      expect.objectContaining({ observationId: never, blockedBy: { code: "TARGET_NOT_VISIBLE", until: null, highestAltitude: expect.closeTo(-13.2, 0) } }),
    );
    const slots = plan.slots;
    expect(slots.length).toBeGreaterThanOrEqual(3);
    // Each curve names the target it follows.
    expect(plan.altitude.find((curve) => curve.observationId === lateRiser)?.target).toEqual({ name: "Rises late", count: 1 });
    expect(Date.parse(slots[0]!.start)).toBeGreaterThanOrEqual(Date.parse(plan.night.darkStart));
    // The late riser waits for its target: a gap before it, ending on a whole minute.
    const riserIndex = slots.findIndex((slot) => slot.observationId === lateRiser);
    expect(riserIndex).toBeGreaterThan(0);
    expect(Date.parse(slots[riserIndex]!.start)).toBeGreaterThan(Date.parse(slots[riserIndex - 1]!.end));
    expect(Date.parse(slots[riserIndex]!.start) % MINUTE).toBe(0);
    // The forecast says the same; the queue's `until` for its target is that minute.
    const forecast = await must(`/observations/${lateRiser}/forecast`, { token: owner.token });
    expect(forecast).toMatchObject({ expectedStart: slots[riserIndex]!.start, expectedEnd: slots[riserIndex]!.end, night: NIGHT, blockedBy: null });
    const queue = await must(`/observatories/${observatory.id}/queue`, { token: owner.token });
    const riserInQueue = queue.items.find((item: { observation: { id: string } }) => item.observation.id === lateRiser);
    expect(riserInQueue.reasons.map((reason: { code: string }) => reason.code)).toEqual(["NOT_DARK", "TARGET_NOT_VISIBLE", "OFFLINE"]);
    expect(riserInQueue.reasons[1].until).toBe(slots[riserIndex]!.start);

    // The plugin: it finishes an observation's exposures when the test says its planned time is over.
    let finishExposures: (() => void) | undefined;
    const simulator = new ObservatorySimulator({
      url: server.url,
      key,
      heartbeatSeconds: 0.25,
      imageBytes: 1024,
      sleep: () => new Promise<void>((resolve) => (finishExposures = resolve)),
    });
    closers.push(() => simulator.close());
    await simulator.connect();

    const observation = (id: string) => must(`/observations/${id}`, { token: owner.token }) as Promise<Observation>;
    let lastSeen: unknown;
    simulator.on("close", (code, reason) => (lastSeen = { closed: code, reason: String(reason) }));
    const seenAt = async (ms: number) =>
      until(`the observatory seen at ${new Date(ms).toISOString()} (${JSON.stringify(lastSeen)})`, async () => {
        const current = await must(`/observatories/${observatory.id}`, { token: owner.token });
        lastSeen = lastSeen && (lastSeen as { closed?: number }).closed ? lastSeen : current.connection;
        // A connection's sighting is written at most once a (clock) minute.
        return current.connection.online && Date.parse(current.connection.lastSeenAt) > ms - MINUTE;
      });
    /** Moves the clock to `ms` in steps, the plugin seen after each, as a real night would go. */
    const moveClockTo = async (ms: number) => {
      while (clock.now() < ms) {
        clock.set(Math.min(clock.now() + CLOCK_STEP, ms));
        await seenAt(clock.now());
      }
    };
    const deps = server.server.runtime.deps;

    for (const [index, slot] of slots.entries()) {
      const start = Date.parse(slot.start);
      const follows = index > 0 && Date.parse(slots[index - 1]!.end) === start;
      if (!follows) {
        // Idle before it: the minute before its start, dispatch (as the minute's cron runs it) assigns nothing.
        await moveClockTo(start - MINUTE);
        expect(await dispatchObservatory({ deps, observatoryId: observatory.id })).toBeNull();
        await moveClockTo(start);
        await dispatchObservatory({ deps, observatoryId: observatory.id });
      }
      const assigned = await until(`${slot.name} assigned`, async () => {
        const current = await observation(slot.observationId);
        return current.status !== "pending" && current;
      });
      expect(assigned.statusChangedAt, `${slot.name} assigned at its planned minute`).toBe(slot.start);
      await until(`${slot.name} in progress`, async () => (await observation(slot.observationId)).status === "in_progress" && finishExposures);
      await moveClockTo(Date.parse(slot.end));
      const finish = finishExposures!;
      finishExposures = undefined;
      finish();
      await until(`${slot.name} completed`, async () => (await observation(slot.observationId)).status === "completed");
    }
    for (const item of plan.unscheduled) expect((await observation(item.observationId)).status).toBe("pending");
  });

  it("by day assigns an observation that bypasses darkness ahead of a higher priority that waits for the dark, which the queue still explains", async () => {
    const owner = await createAccount(server);
    const observatory = await must("/observatories", { method: "POST", token: owner.token, json: { name: `Day ${randomUUID().slice(0, 6)}` } }, 201);
    await must(`/observatories/${observatory.id}`, { method: "PUT", token: owner.token, json: { location: LA_PALMA } }, 200);
    const project = await must("/projects", { method: "POST", token: owner.token, json: { name: `Day ${randomUUID().slice(0, 6)}` } }, 201);
    const key = (await must(`/observatories/${observatory.id}/api-keys`, { method: "POST", token: owner.token, json: { name: "simulator" } }, 201)).key;
    // Local noon, two days after the first test's night; the target is near the zenith then.
    controlServerClock(server, Date.parse("2026-12-12T13:10:00Z"));
    const create = async (name: string, priority: number, bypassDarkness: boolean) => {
      const target = { name, ra: 262, dec: 29, epoch: "J2000", exposures: [{ filter: "L", exposureSeconds: 60, count: 1, binning: 1 }] };
      const json = { name, projectId: project.id, observatoryId: observatory.id, priority, bypassDarkness, targets: [target] };
      return (await must("/observations", { method: "POST", token: owner.token, json }, 201)).id as string;
    };
    const waitsForDark = await create("Waits for the dark", 9, false);
    const byDay = await create("By day", 1, true);

    // Its exposures never end: the observatory stays busy with it.
    const simulator = new ObservatorySimulator({
      url: server.url,
      key,
      heartbeatSeconds: 0.25,
      imageBytes: 1024,
      sleep: () => new Promise<void>(() => undefined),
    });
    closers.push(() => simulator.close());
    await simulator.connect();
    const status = async (id: string) => ((await must(`/observations/${id}`, { token: owner.token })) as Observation).status;
    await until("the observation that bypasses darkness assigned", async () => (await status(byDay)) !== "pending");
    expect(await status(waitsForDark)).toBe("pending");
    const queue = await must(`/observatories/${observatory.id}/queue`, { token: owner.token });
    const waiting = queue.items.find((item: { observation: { id: string } }) => item.observation.id === waitsForDark);
    expect(waiting.reasons[0]).toEqual({ code: "NOT_DARK", until: queue.darkness.start });
  });

  it("answers 401 before its input, 404 to who cannot view the observatory, and 400 for a night it does not plan", async () => {
    const owner = await createAccount(server);
    const stranger = await createAccount(server);
    const observatory = await must("/observatories", { method: "POST", token: owner.token, json: { name: `Closed ${randomUUID().slice(0, 6)}` } }, 201);
    await expectProblem(await server.request(`/observatories/${observatory.id}/plan?night=garbage`), 401, "UNAUTHENTICATED");
    await expectProblem(await server.request(`/observatories/${observatory.id}/plan`, { token: stranger.token }), 404, "NOT_FOUND");
    await expectProblem(await server.request(`/observatories/${observatory.id}/plan?night=garbage`, { token: owner.token }), 400, "VALIDATION_FAILED");
    await expectProblem(await server.request(`/observatories/${observatory.id}/plan?night=2001-01-01`, { token: owner.token }), 400, "VALIDATION_FAILED");
    const project = await must("/projects", { method: "POST", token: owner.token, json: { name: "Closed" } }, 201);
    const created = await must(
      "/observations",
      {
        method: "POST",
        token: owner.token,
        json: {
          name: "Private",
          projectId: project.id,
          observatoryId: observatory.id,
          targets: [{ name: "M 31", ra: 10.68, dec: 41.27, epoch: "J2000", exposures: [{ filter: "L", exposureSeconds: 60, count: 1, binning: 1 }] }],
        },
      },
      201,
    );
    await expectProblem(await server.request(`/observations/${created.id}/forecast`), 401, "UNAUTHENTICATED");
    await expectProblem(await server.request(`/observations/${created.id}/forecast`, { token: stranger.token }), 404, "NOT_FOUND");
    // Without a location there is no darkness to wait for: it would start at once, once the observatory is online.
    expect(await must(`/observations/${created.id}/forecast`, { token: owner.token })).toMatchObject({
      blockedBy: null,
      observatoryReasons: [{ code: "OFFLINE", until: null }],
    });
    // A project member reads the observation and its forecast, but not the observatory's state, which is can_view's.
    const member = await createAccount(server);
    await must(`/projects/${project.id}/members`, { method: "POST", token: owner.token, json: { email: member.email, role: "member" } }, 201);
    await expectProblem(await server.request(`/observatories/${observatory.id}`, { token: member.token }), 404, "NOT_FOUND");
    const forecast = (await must(`/observations/${created.id}/forecast`, { token: member.token })) as Record<string, unknown>;
    expect(forecast).toMatchObject({ blockedBy: null, expectedStart: expect.any(String) });
    expect(forecast).not.toHaveProperty("observatoryReasons");
  });
});
