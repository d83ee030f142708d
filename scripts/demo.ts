/**
 * `pnpm demo`: the server with its worker on the embedded defaults, a small network seeded once
 * (an organization, two observatories with locations, a project, a dozen observations) and two
 * simulated observatories running, so a newcomer sees observations dispatched, run, uploaded and
 * completed within a minute. Sign in with the printed administrator (scripts/demo.sh sets one
 * unless ADMIN_EMAIL and ADMIN_PASSWORD are given); Ctrl-C stops everything.
 */
import { createLogger, loadEnvOrExit, runUntilSignalled } from "@meridian/config";
import { targetAltitude } from "@meridian/domain/observations";
import { startServer, type RunningServer } from "@meridian/server";
import { ObservatorySimulator, SIMULATED_FILTERS } from "@meridian/simulator";

const env = loadEnvOrExit();
if (!env.ADMIN_EMAIL || !env.ADMIN_PASSWORD) {
  console.error("The demo signs in as ADMIN_EMAIL with ADMIN_PASSWORD: set both, or run it with pnpm demo, which does.");
  process.exit(2);
}
const logger = createLogger({ level: env.LOG_LEVEL === "info" ? "warn" : env.LOG_LEVEL, name: "meridian-demo" });

/**
 * Each site's simulated sky differs, so that the graded frames do: La Palma's are sharp and on
 * target; Siding Spring's seeing is softer, its mount points up to 13′ off (past the default
 * grading's 10′ in about 40 % of frames: OFF_TARGET) and a third of its frames are clouded
 * (TOO_FEW_STARS, NOT_SOLVED).
 */
const sites = [
  {
    name: "Demo Roque de los Muchachos",
    location: { latitude: 28.7606, longitude: -17.8792, elevation: 2396 },
    sky: { seeingArcsec: 5, pointingErrorArcmin: 3, trackingErrorArcsec: 0, cloudFraction: 0.05, seed: 1 },
  },
  {
    name: "Demo Siding Spring",
    location: { latitude: -31.2733, longitude: 149.0617, elevation: 1165 },
    sky: { seeingArcsec: 8, pointingErrorArcmin: 13, trackingErrorArcsec: 6, cloudFraction: 0.35, seed: 2 },
  },
];
const catalog = [
  { name: "M 31", ra: 10.6847, dec: 41.269 },
  { name: "M 42", ra: 83.8221, dec: -5.3911 },
  { name: "M 13", ra: 250.4235, dec: 36.4613 },
  { name: "M 57", ra: 283.3963, dec: 33.0292 },
  { name: "NGC 253", ra: 11.888, dec: -25.2883 },
  { name: "Omega Centauri", ra: 201.697, dec: -47.4795 },
  { name: "M 104", ra: 189.9976, dec: -11.6231 },
  { name: "47 Tucanae", ra: 6.0236, dec: -72.0813 },
];

async function call<T>(base: string, path: string, token: string | null, init: { method?: string; json?: unknown } = {}): Promise<T> {
  const response = await fetch(`${base}${path}`, {
    method: init.method ?? "GET",
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(init.json ? { "content-type": "application/json" } : {}) },
    body: init.json ? JSON.stringify(init.json) : undefined,
  });
  if (!response.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json().catch(() => null)) as T;
}

/** Seeds the network through the public API the first time; later runs find it by the organization's short name. */
async function seed(base: string, token: string) {
  const organizations = await call<{ items: Array<{ id: string; shortName: string }> }>(base, "/organizations", token);
  let organization = organizations.items.find((item) => item.shortName === "demo-society");
  organization ??= await call<{ id: string; shortName: string }>(base, "/organizations", token, {
    method: "POST",
    json: { name: "Demo Astronomical Society", shortName: "demo-society", type: "nonprofit", contactEmail: "demo@meridian.local" },
  });
  const existing = await call<{ items: Array<{ id: string; name: string }> }>(base, "/observatories?limit=200", token);
  const observatories = [];
  for (const site of sites) {
    const found = existing.items.find((item) => item.name === site.name);
    observatories.push(
      found ??
        (await call<{ id: string; name: string }>(base, "/observatories", token, {
          method: "POST",
          json: { name: site.name, organizationId: organization.id, location: site.location },
        })),
    );
  }
  const projects = await call<{ items: Array<{ id: string; name: string }> }>(base, "/projects", token);
  let project = projects.items.find((item) => item.name === "Demo survey");
  if (!project) {
    project = await call<{ id: string; name: string }>(base, "/projects", token, {
      method: "POST",
      json: { name: "Demo survey", organizationId: organization.id },
    });
    // A dozen observations: some wait for darkness, some (bright targets) may run by day too.
    const now = new Date();
    for (let index = 0; index < 12; index += 1) {
      const site = sites[index % 2]!;
      const observatory = observatories[index % 2]!;
      const visible = catalog.filter((target) => targetAltitude({ location: site.location, target, at: now }) > 35);
      const target = (index < 6 && visible.length > 0 ? visible : catalog)[index % (index < 6 && visible.length > 0 ? visible.length : catalog.length)]!;
      await call(base, "/observations", token, {
        method: "POST",
        json: {
          name: `${target.name} ${index < 6 ? "quick look" : "deep field"}`,
          projectId: project.id,
          observatoryId: observatory.id,
          priority: 10 - (index % 5),
          bypassDarkness: index < 6,
          constraints: { minAltitude: index < 6 ? 0 : 30, maxAirmass: null, moonDistance: null, twilight: "astronomical" },
          targets: [{ ...target, exposures: [{ filter: ["L", "R", "G", "B"][index % 4], exposureSeconds: 30 + index * 10, count: 3, binning: 1 }] }],
        },
      });
    }
  }
  return observatories;
}

await runUntilSignalled({
  logger,
  start: async () => {
    const running: RunningServer = await startServer({ env, logger });
    const simulators: ObservatorySimulator[] = [];
    try {
      const login = await call<{ token: string }>(running.url, "/api/v1/auth/login", null, {
        method: "POST",
        json: { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD },
      });
      const observatories = await seed(running.url, login.token);
      for (const [index, observatory] of observatories.entries()) {
        const key = await call<{ key: string }>(running.url, `/observatories/${observatory.id}/api-keys`, login.token, {
          method: "POST",
          json: { name: `demo simulator ${new Date().toISOString()}` },
        });
        const simulator = new ObservatorySimulator({
          url: running.url,
          key: key.key,
          speed: 30,
          systemInfo: { os: "Simulated", host: observatory.name },
          equipment: { camera: "Simulated CCD 2048", mount: "Simulated fork mount", filters: SIMULATED_FILTERS },
          sky: { catalogDir: env.STAR_CATALOG_DIR, ...sites[index]!.sky },
          log: (line) => console.log(`[${observatory.name}] ${line}`),
        });
        await simulator.connect();
        simulators.push(simulator);
      }
    } catch (error) {
      await running.stop();
      throw error;
    }
    console.log(
      [
        `Meridian demo at ${running.url}/app/ (API reference ${running.url}/api/docs)`,
        `  sign in as ${env.ADMIN_EMAIL} / ${env.ADMIN_PASSWORD}`,
        "  two simulated observatories are connected; watch Observations and the observatories' Queue tabs",
        "  their frames are real sky, analysed and graded by the server (some rejected: off target, clouded); see each observation's files",
      ].join("\n"),
    );
    return {
      stop: async () => {
        for (const simulator of simulators) await simulator.goodbye().catch(() => undefined);
        await running.stop();
      },
    };
  },
});
