import type { NetworkPlanDoc } from "@meridian/db";
import { NetworkPlanCache, skyModel, type NetworkBlock, type NetworkObservation, type SkyModel } from "@meridian/scheduler";

/** After this long a process lets go of what it kept between plans and starts again (the sky models' own tables grow with the days). */
const KEPT_FOR_MS = 24 * 3_600_000;
/**
 * A plan is made from the plan in force unless more of the observations pending now are new to it than this share of
 * them (and than NEW_TO_SEED_AT_LEAST): after a bulk submission the plan from scratch, which tries more, is worth its time.
 */
const NEW_SHARE_TO_SEED = 0.1;
const NEW_TO_SEED_AT_LEAST = 10;

/**
 * What one process keeps from one plan to the next, so that a plan after a change computes only what it
 * changed: the planner's cache (`NetworkPlanCache`, keyed by document and sky model objects, and itself
 * bounded to what the last two plans used), and so the same objects for what did not change: each pending
 * observation's document while it reads the same, each location's sky model. Bounded: the documents and
 * models of the last plan only (at most the planning's read limit), and all of it let go after KEPT_FOR_MS.
 */
export class KeptBetweenPlans {
  readonly cache = new NetworkPlanCache();
  private docs = new Map<string, { json: string; doc: object }>();
  private nextDocs = new Map<string, { json: string; doc: object }>();
  private models = new Map<string, SkyModel>();
  private nextModels = new Map<string, SkyModel>();

  constructor(readonly since: number) {}

  /** A new reading of the inputs: what the reading before did not see is let go after this one. */
  beginReading(): void {
    [this.docs, this.nextDocs] = [this.nextDocs, new Map()];
    [this.models, this.nextModels] = [this.nextModels, new Map()];
  }

  /** The observation's document as the last plan held it when it reads the same (an edit makes a new one). */
  doc<Doc extends object>(id: string, doc: Doc): Doc {
    const json = JSON.stringify(doc);
    const known = this.docs.get(id);
    const kept = known?.json === json ? known : { json, doc };
    this.nextDocs.set(id, kept);
    return kept.doc as Doc;
  }

  /** One sky model per location. */
  model(location: Parameters<typeof skyModel>[0]["location"]): SkyModel {
    const key = JSON.stringify([location.latitude, location.longitude, location.elevation]);
    const model = this.nextModels.get(key) ?? this.models.get(key) ?? skyModel({ location });
    this.nextModels.set(key, model);
    return model;
  }
}

let kept: KeptBetweenPlans | null = null;

/** This process's `KeptBetweenPlans`, made again when it is older than KEPT_FOR_MS (or the clock went back). */
export function keptBetweenPlans(now: Date): KeptBetweenPlans {
  const at = now.getTime();
  if (!kept || at - kept.since > KEPT_FOR_MS || at < kept.since) kept = new KeptBetweenPlans(at);
  return kept;
}

/**
 * The plan in force as the runs that seed the next plan: each slot of an observation still pending, with its
 * document as read now; the planner drops each that no longer holds whole where it was (an edit, a window or
 * the sky, a new estimate, its observatory busy, away or taken). None (a plan from scratch) without a plan in
 * force or when too many of the observations pending now are new to it (a bulk submission).
 */
export function seedFromPlanInForce<Observation extends NetworkObservation>(options: {
  stored: Pick<NetworkPlanDoc, "slots" | "unscheduled"> | null;
  observations: ReadonlyArray<Observation>;
}): { blocks: NetworkBlock<Observation>[] } | undefined {
  const { stored, observations } = options;
  if (!stored) return undefined;
  const known = new Set([...stored.slots, ...stored.unscheduled].map((item) => item.observationId));
  const newToIt = observations.filter((observation) => !known.has(observation.id)).length;
  if (newToIt > Math.max(NEW_TO_SEED_AT_LEAST, NEW_SHARE_TO_SEED * observations.length)) return undefined;
  const byId = new Map(observations.map((observation) => [observation.id, observation]));
  return {
    blocks: stored.slots.flatMap((slot) => {
      const observation = byId.get(slot.observationId);
      return observation ? [{ observation, observatoryId: slot.observatoryId, run: slot.run, start: new Date(slot.start), end: new Date(slot.end) }] : [];
    }),
  };
}
