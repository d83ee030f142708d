import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { controlServerClock } from "../support/test-clock";
import type { TestServer } from "../support/test-server";

/**
 * The scheduling engine's answers on a seeded network at a fixed clock, kept in a file: dispatch
 * (what each observatory would be given next), the queue with its reasons, the night plans and the
 * forecasts. Moving the engine must leave every byte of it as it was.
 */
const ADMIN = { email: "scheduler-golden-admin@example.com", password: "scheduler golden admin password" };
const NOW = Date.parse("2026-12-10T12:00:00Z");

const SITES = [
  { name: "La Palma", location: { latitude: 28.7606, longitude: -17.8792, elevation: 2396 }, timeZone: "Atlantic/Canary" },
  { name: "Cerro Tololo", location: { latitude: -30.1691, longitude: -70.8063, elevation: 2207 }, timeZone: "America/Santiago" },
  { name: "Siding Spring", location: { latitude: -31.2733, longitude: 149.0617, elevation: 1165 }, timeZone: "Australia/Sydney" },
  { name: "Nowhere", location: null, timeZone: "Europe/Berlin" },
] as const;

const TARGETS = {
  vega: { ra: 279.2347, dec: 38.7837 },
  m42: { ra: 83.8221, dec: -5.3911 },
  lmc: { ra: 80.8942, dec: -69.7561 },
  m31: { ra: 10.6847, dec: 41.2691 },
  crux: { ra: 187.7915, dec: -59.6888 },
  polar: { ra: 150, dec: 80 },
  omegaCen: { ra: 201.6968, dec: -47.4795 },
} as const;

interface Seed {
  name: string;
  target: keyof typeof TARGETS;
  seconds: number;
  count?: number;
  priority?: number;
  type?: string;
  constraints?: Record<string, unknown>;
  fixedTimeStart?: string | null;
  fixedTimeEnd?: string | null;
  bypassDarkness?: boolean;
  monitoring?: Record<string, unknown> | null;
  limited?: boolean;
  targets?: number;
}

const hours = (count: number) => new Date(NOW + count * 3_600_000).toISOString();
const SEEDS: Seed[] = [
  { name: "high priority m42", target: "m42", seconds: 600, count: 3, priority: 9 },
  { name: "vega low", target: "vega", seconds: 300, priority: 2 },
  { name: "long m31", target: "m31", seconds: 1800, count: 4, priority: 6, constraints: { minAltitude: 40 } },
  { name: "lmc airmass", target: "lmc", seconds: 120, count: 10, constraints: { minAltitude: 20, maxAirmass: 1.6 } },
  { name: "crux moon", target: "crux", seconds: 240, count: 5, priority: 7, constraints: { minAltitude: 25, moonDistance: 60, twilight: "nautical" } },
  { name: "polar civil", target: "polar", seconds: 60, count: 20, priority: 4, constraints: { minAltitude: 15, twilight: "civil" } },
  { name: "omega cen", target: "omegaCen", seconds: 900, count: 2, priority: 8 },
  { name: "fixed tomorrow", target: "m42", seconds: 300, type: "fixed_time", fixedTimeStart: hours(34), priority: 10 },
  { name: "window in daylight", target: "vega", seconds: 60, type: "time_based", fixedTimeStart: hours(1), fixedTimeEnd: hours(3) },
  { name: "window tonight", target: "m31", seconds: 200, type: "time_based", fixedTimeStart: hours(8), fixedTimeEnd: hours(14), priority: 6 },
  { name: "daylight bypass", target: "polar", seconds: 30, count: 4, bypassDarkness: true, priority: 3 },
  { name: "monitoring lmc", target: "lmc", seconds: 180, type: "monitoring", monitoring: { intervalMinutes: 90, until: hours(72), maxRuns: 5 } },
  { name: "allocated big", target: "m42", seconds: 1200, count: 3, priority: 7, limited: true },
  { name: "allocated small", target: "omegaCen", seconds: 300, priority: 5, limited: true },
  { name: "two targets", target: "crux", seconds: 100, count: 2, targets: 2, priority: 5 },
  { name: "tight altitude", target: "vega", seconds: 400, priority: 6, constraints: { minAltitude: 70 } },
];

let server: TestServer;
let owner: Account;
beforeAll(async () => {
  ({ server } = await startServerWithAdmin(ADMIN));
  controlServerClock(server, NOW);
  owner = await createAccount(server);
});
afterAll(async () => {
  await server?.stop();
});
const { must } = jsonApi(() => server);

function body(seed: Seed, observatoryId: string, projectId: string) {
  const { ra, dec } = TARGETS[seed.target];
  const target = (index: number) => ({
    name: `${seed.name} ${index}`,
    ra: (ra + index * 15) % 360,
    dec,
    epoch: "J2000",
    exposures: [{ filter: "L", exposureSeconds: seed.seconds, count: seed.count ?? 1, binning: 1 }],
  });
  return {
    name: seed.name,
    projectId,
    observatoryId,
    type: seed.type ?? "flexible",
    priority: seed.priority ?? 5,
    constraints: { minAltitude: 30, maxAirmass: null, moonDistance: null, twilight: "astronomical", ...seed.constraints },
    fixedTimeStart: seed.fixedTimeStart ?? null,
    fixedTimeEnd: seed.fixedTimeEnd ?? null,
    bypassDarkness: seed.bypassDarkness ?? false,
    monitoring: seed.monitoring ?? null,
    targets: Array.from({ length: seed.targets ?? 1 }, (_, index) => target(index)),
  };
}

/** Replaces every id the network made with the name it was given, so the record does not depend on them. */
function named(value: unknown, names: Map<string, string>): unknown {
  if (typeof value === "string") return names.get(value) ?? value;
  if (Array.isArray(value)) return value.map((item) => named(item, names));
  if (value && typeof value === "object") {
    const entries = Object.entries(value).filter(([key]) => !["ownerId", "ownerName", "createdAt", "updatedAt", "statusChangedAt"].includes(key));
    return Object.fromEntries(entries.map(([key, item]) => [key, named(item, names)]));
  }
  return value;
}

/** An altitude curve's points as `time altitude` lines, so the record stays readable. */
function compactCurves(plan: { altitude: Array<{ points: Array<{ at: string; altitude: number }> }> }) {
  return {
    ...plan,
    altitude: plan.altitude.map((curve) => ({ ...curve, points: curve.points.map((point) => `${point.at} ${point.altitude}`) })),
  };
}

interface QueueItem {
  observation: { id: string; name: string; estimatedSeconds?: number };
  eligible: boolean;
  blockedBy: unknown;
  reasons: Array<{ code: string }>;
}

/** The same answers whatever order their fields come in (a response is serialized in its schema's order). */
const withSortedKeys = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(withSortedKeys)
    : value !== null && typeof value === "object"
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((key) => [key, withSortedKeys((value as Record<string, unknown>)[key])]),
        )
      : value;

describe("the scheduling engine's answers on a seeded network", () => {
  it("dispatch, the queue, the night plans and the forecasts are the recorded ones", async () => {
    const names = new Map<string, string>();
    const project = async (name: string) => {
      const created = await must("/projects", { method: "POST", token: owner.token, json: { name: `Golden ${name}` } }, 201);
      names.set(created.id, `project ${name}`);
      return created.id as string;
    };
    const open = await project("open");
    const limited = await project("limited");
    const observatories: Array<{ id: string; name: string }> = [];
    for (const site of SITES) {
      const observatory = await must("/observatories", { method: "POST", token: owner.token, json: { name: `Golden ${site.name}` } }, 201);
      names.set(observatory.id, `observatory ${site.name}`);
      await must(`/observatories/${observatory.id}`, { method: "PUT", token: owner.token, json: { location: site.location, timeZone: site.timeZone } }, 200);
      await must(`/observatories/${observatory.id}/allocations/${limited}`, { method: "PUT", token: owner.token, json: { hours: 1 } }, 200);
      observatories.push({ id: observatory.id, name: site.name });
      for (const seed of SEEDS) {
        const created = await must(
          "/observations",
          { method: "POST", token: owner.token, json: body(seed, observatory.id, seed.limited ? limited : open) },
          201,
        );
        names.set(created.id, `${site.name}: ${seed.name}`);
      }
    }

    const record: Record<string, unknown> = {};
    for (const observatory of observatories) {
      const queue = await must(`/observatories/${observatory.id}/queue`, { token: owner.token });
      const items = queue.items as QueueItem[];
      // Every observatory here is offline: dispatch would give it the first observation held by nothing but that.
      const next = items.find((item) => item.reasons.every((reason) => reason.code === "OFFLINE"));
      const plans = [];
      const tonight = await must(`/observatories/${observatory.id}/plan`, { token: owner.token });
      plans.push(tonight);
      const date = new Date(`${tonight.date}T00:00:00Z`);
      for (const days of [1, 2]) {
        const later = new Date(date.getTime() + days * 86_400_000).toISOString().slice(0, 10);
        plans.push(await must(`/observatories/${observatory.id}/plan?night=${later}`, { token: owner.token }));
      }
      const forecasts: Record<string, unknown> = {};
      for (const item of items) forecasts[item.observation.name] = await must(`/observations/${item.observation.id}/forecast`, { token: owner.token });
      const draft = await must("/observations/forecast", {
        method: "POST",
        token: owner.token,
        json: body({ name: "draft", target: "omegaCen", seconds: 450, count: 2, priority: 8 }, observatory.id, open),
      });
      record[observatory.name] = named(
        {
          dispatchNext: next ? next.observation.id : null,
          queue: {
            ...queue,
            items: items.map((item) => ({ id: item.observation.id, eligible: item.eligible, blockedBy: item.blockedBy, reasons: item.reasons })),
          },
          plans: plans.map(compactCurves),
          forecasts,
          draft,
        },
        names,
      );
    }
    await expect(`${JSON.stringify(withSortedKeys(record), null, 2)}\n`).toMatchFileSnapshot("../fixtures/scheduler-golden.json");
  });
});
