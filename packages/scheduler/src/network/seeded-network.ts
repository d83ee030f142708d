import { estimatedSeconds, type ObservatoryTiming } from "@meridian/rules";
import { skyModel, type SkyModel } from "../sky-model";
import { seededRandom } from "./random";
import type { NetworkAllocation, NetworkObservation, NetworkObservatory, NetworkPlanInput } from "./inputs";

/**
 * Seeded networks for the planner's tests and its benchmark (bench/network-plan.ts): observatories
 * at up to four sites, observations with random targets, priorities, exposures, constraints and
 * candidates, some with a fixed window, a monitoring cadence, an allocated project or a filter
 * that not every observatory has. The same seed gives the same network.
 */
export const SITES = [
  { name: "La Palma", location: { latitude: 28.7606, longitude: -17.8792, elevation: 2396 } },
  { name: "Cerro Tololo", location: { latitude: -30.1691, longitude: -70.8063, elevation: 2207 } },
  { name: "Siding Spring", location: { latitude: -31.2733, longitude: 149.0617, elevation: 1165 } },
  { name: "McDonald", location: { latitude: 30.6714, longitude: -104.0225, elevation: 2070 } },
] as const;

export interface SeededObservation extends NetworkObservation {
  createdAt: Date;
  doc: Omit<NetworkObservation["doc"], "targets"> & {
    priority: number;
    targets: Array<{ ra: number; dec: number; exposures: Array<{ filter: string; exposureSeconds: number; count: number }> }>;
  };
}

export interface SeededNetwork extends NetworkPlanInput<SeededObservation> {
  timings: Map<string, ObservatoryTiming>;
}

const models = new Map<string, SkyModel>();
const modelOf = (site: (typeof SITES)[number]) => {
  let model = models.get(site.name);
  if (!model) models.set(site.name, (model = skyModel({ location: site.location })));
  return model;
};

export function seededNetwork(options: {
  seed: number;
  observatories: number;
  observations: number;
  sites?: number;
  now?: Date;
  horizonHours?: number;
  /** Share of observations with more than one candidate. */
  networked?: number;
  /** Mean exposure minutes per observation (default 25). */
  minutes?: number;
  monitoring?: boolean;
  allocations?: boolean;
}): SeededNetwork {
  const random = seededRandom(options.seed);
  const now = options.now ?? new Date("2026-12-10T12:00:00Z");
  const sites = SITES.slice(0, options.sites ?? 4);
  const observatories: NetworkObservatory[] = [];
  const timings = new Map<string, ObservatoryTiming>();
  for (let index = 0; index < options.observatories; index += 1) {
    const site = sites[index % sites.length]!;
    const id = `obs_${String(index + 1).padStart(2, "0")}`;
    // Every third observatory reports its filters, and has no Hα.
    const filters = index % 3 === 2 ? ["L", "R", "G", "B"] : null;
    observatories.push({ id, model: modelOf(site), filters, busyUntil: null });
    timings.set(id, { slewSeconds: 60 + 30 * (index % 3), readoutSeconds: 5 + 5 * (index % 2) });
  }
  const observations: SeededObservation[] = [];
  const pick = <T>(items: ReadonlyArray<T>) => items[Math.floor(random() * items.length)]!;
  const meanMinutes = options.minutes ?? 25;
  for (let index = 0; index < options.observations; index += 1) {
    const networked = random() < (options.networked ?? 0.7);
    const count = networked ? 2 + Math.floor(random() * Math.min(3, observatories.length - 1)) : 1;
    const candidates = new Set<string>();
    while (candidates.size < Math.min(count, observatories.length)) candidates.add(pick(observatories).id);
    const exposureMinutes = Math.max(2, Math.round(meanMinutes * (0.3 + 1.4 * random())));
    const filter = random() < 0.1 ? "Ha" : pick(["L", "R", "G", "B"]);
    const kind = random();
    const fixedStart = new Date(now.getTime() + Math.floor(random() * (options.horizonHours ?? 72) * 12) * 300_000);
    const window =
      kind < 0.08
        ? { fixedTimeStart: fixedStart.toISOString(), fixedTimeEnd: new Date(fixedStart.getTime() + (2 + random() * 6) * 3_600_000).toISOString() }
        : null;
    const monitoring =
      options.monitoring !== false && kind > 0.95
        ? { intervalMinutes: 60 + Math.floor(random() * 180), until: null, maxRuns: 2 + Math.floor(random() * 4) }
        : null;
    const priority = 1 + Math.floor(random() * 10);
    observations.push({
      id: `obn_${String(index + 1).padStart(5, "0")}`,
      createdAt: new Date(now.getTime() - 86_400_000 + index * 1000),
      priority,
      candidateObservatoryIds: [...candidates],
      filters: [filter],
      doc: {
        projectId: `prj_${1 + Math.floor(random() * 5)}`,
        priority,
        targets: [{ ra: random() * 360, dec: -75 + random() * 135, exposures: [{ filter, exposureSeconds: 60, count: exposureMinutes }] }],
        constraints: {
          minAltitude: 25 + Math.floor(random() * 20),
          maxAirmass: random() < 0.2 ? 1.8 : null,
          moonDistance: random() < 0.2 ? 30 : null,
          twilight: random() < 0.15 ? "nautical" : "astronomical",
        },
        fixedTimeStart: window?.fixedTimeStart ?? null,
        fixedTimeEnd: window?.fixedTimeEnd ?? null,
        bypassDarkness: false,
        monitoring,
      },
    });
  }
  observations.sort((a, b) => b.priority - a.priority || a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
  const allocations: NetworkAllocation[] =
    options.allocations === false
      ? []
      : observatories.slice(0, 3).map((observatory, index) => ({
          observatoryId: observatory.id,
          projectId: `prj_${index + 1}`,
          leftMs: (2 + index) * 3_600_000,
          periodStart: new Date(now.getTime() - 30 * 86_400_000),
          periodEnd: new Date(now.getTime() + 60 * 86_400_000),
        }));
  return {
    now,
    horizonHours: options.horizonHours ?? 72,
    observatories,
    observations,
    allocations,
    timings,
    durationMs: (observation, observatoryId) => estimatedSeconds({ targets: observation.doc.targets, timing: timings.get(observatoryId)! }) * 1000,
  };
}
