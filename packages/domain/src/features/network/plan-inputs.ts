import { candidateObservatoryIdsOf, storedFromRow, type Executor, type ObservationDoc, type ObservatoryDoc, type StoredDocument } from "@meridian/db";
import { activeStatuses, filtersAskedBy, reportedFilters } from "@meridian/rules";
import { skyModel, type NetworkAllocation, type NetworkObservation, type NetworkObservatory, type NetworkPlanInput } from "@meridian/scheduler";
import { sql } from "drizzle-orm";
import { estimatedSecondsOf, observationVersion, usedMs } from "../observations";
import { observatoryUnavailableSince } from "../observatories";
import type { KeptBetweenPlans } from "./warm-start";

/** Pending observations one plan reads, in dispatch order: the size the planner is measured at, and then some. */
const PLAN_READ_LIMIT = 5_000;
const HOUR_MS = 3_600_000;

type Stored = StoredDocument<ObservationDoc>;
/** A pending observation as the planner takes it: its stored document, its priority, candidates and filters. */
export type PlannedObservation = NetworkObservation & Stored;

/** The planner's input, with the observatories' documents it was read from. */
export interface NetworkInputs {
  input: NetworkPlanInput<PlannedObservation>;
  observatories: ReadonlyArray<StoredDocument<ObservatoryDoc>>;
  /** Each pending observation's row version as read (`observationVersion`): the plan records it, and dispatch compares. */
  versions: ReadonlyMap<string, string>;
}

/**
 * What holds each observatory held now and since when (`observatoryUnavailableSince`, the failover's measure):
 * OFFLINE while it is offline, else UNSAFE (unsafe or under a weather hold).
 */
async function heldSince(
  db: Executor,
  observatories: ReadonlyArray<StoredDocument<ObservatoryDoc>>,
): Promise<Map<string, { code: "OFFLINE" | "UNSAFE"; since: Date }>> {
  const held = await Promise.all(
    observatories.map(async (observatory) => {
      const away = await observatoryUnavailableSince({ db, observatory });
      return away ? ([[observatory.id, { code: away.kinds.includes("offline") ? "OFFLINE" : "UNSAFE", since: away.since }]] as const) : [];
    }),
  );
  return new Map(held.flat());
}

/**
 * When what each observatory has assigned or under way is expected to end (no earlier than now): from its assignment's
 * `at`, on the server's clock as `now` and every move are (the row's `created_at` is the database's clock).
 */
async function busyUntil(db: Executor, observatories: ReadonlyMap<string, StoredDocument<ObservatoryDoc>>, now: Date): Promise<Map<string, Date>> {
  const rows = await db.execute<{ id: string; doc: ObservationDoc; created_at: string; updated_at: string; assigned_at: string | null }>(sql`
    select o.id, o.doc, o.created_at, o.updated_at,
           (select max((h.doc->>'at')::timestamptz) from observation_history h where h.observation_id = o.id and h.doc->>'to' = 'assigned') as assigned_at
      from observations o where o.status in ${[...activeStatuses]}`);
  const ends = new Map<string, Date>();
  for (const row of rows) {
    const observatory = row.doc.observatoryId === null ? undefined : observatories.get(row.doc.observatoryId);
    if (!observatory) continue;
    const start = new Date(row.assigned_at ?? row.doc.statusChangedAt).getTime();
    const end = Math.max(start + estimatedSecondsOf({ doc: row.doc, observatory: observatory.doc }) * 1000, now.getTime());
    if (end > (ends.get(observatory.id)?.getTime() ?? 0)) ends.set(observatory.id, new Date(end));
  }
  return ends;
}

/** What is left of each allocation (its hours less what its project used in the period so far) and its period. */
async function allocationsOf(db: Executor, observatories: ReadonlyArray<StoredDocument<ObservatoryDoc>>, now: Date): Promise<NetworkAllocation[]> {
  const allocations = observatories.flatMap((observatory) => (observatory.doc.allocations ?? []).map((allocation) => ({ observatory, allocation })));
  return Promise.all(
    allocations.map(async ({ observatory, allocation }) => {
      const periodStart = new Date(allocation.periodStart);
      const periodEnd = new Date(allocation.periodEnd);
      const used =
        now > periodStart ? await usedMs({ db, observatoryId: observatory.id, projectId: allocation.projectId, from: periodStart, to: periodEnd, now }) : 0;
      return { observatoryId: observatory.id, projectId: allocation.projectId, leftMs: Math.max(0, allocation.hours * HOUR_MS - used), periodStart, periodEnd };
    }),
  );
}

/**
 * Everything the network plan is made from, read at `now`: every observatory not removed (its sky,
 * when what it holds ends, and whether it has been away longer than `reassignAfterMinutes`), every
 * pending observation in dispatch order with its candidates, and what is left of each allocation.
 */
export async function loadNetworkInputs(options: {
  db: Executor;
  now: Date;
  horizonHours: number;
  reassignAfterMinutes: number;
  /** What this process kept from its plan before: the same document and sky model objects for what did not change. */
  kept?: KeptBetweenPlans;
}): Promise<NetworkInputs> {
  const { db, now, kept } = options;
  kept?.beginReading();
  const [observatoryRows, pendingRows] = await Promise.all([
    db.execute<{ id: string; doc: ObservatoryDoc; created_at: string; updated_at: string }>(sql`
      select id, doc, created_at, updated_at from observatories where doc->>'removedAt' is null order by id`),
    db.execute<{ id: string; doc: ObservationDoc; created_at: string; updated_at: string; version: string }>(sql`
      select id, doc, created_at, updated_at, ${observationVersion("o")} as version from observations o where status = 'pending'
       order by priority desc, created_at, id limit ${PLAN_READ_LIMIT}`),
  ]);
  const observatories = observatoryRows.map(storedFromRow);
  const byId = new Map(observatories.map((observatory) => [observatory.id, observatory]));
  const [held, busy, allocations] = await Promise.all([heldSince(db, observatories), busyUntil(db, byId, now), allocationsOf(db, observatories, now)]);
  const awayLimit = now.getTime() - options.reassignAfterMinutes * 60_000;
  const networkObservatories = observatories.map((observatory): NetworkObservatory => {
    const away = held.get(observatory.id);
    const { location } = observatory.doc;
    return {
      id: observatory.id,
      model: location ? (kept?.model(location) ?? skyModel({ location })) : null,
      filters: reportedFilters(observatory.doc.equipment),
      busyUntil: busy.get(observatory.id) ?? null,
      unavailable: away && away.since.getTime() <= awayLimit ? away.code : null,
    };
  });
  const observations = pendingRows.map(storedFromRow).map((stored): PlannedObservation => {
    const observation = kept ? { ...stored, doc: kept.doc(stored.id, stored.doc) } : stored;
    return {
      ...observation,
      priority: observation.doc.priority,
      candidateObservatoryIds: candidateObservatoryIdsOf(observation.doc),
      filters: filtersAskedBy(observation.doc.targets),
    };
  });
  return {
    observatories,
    versions: new Map(pendingRows.map((row) => [row.id, row.version])),
    input: {
      now,
      horizonHours: options.horizonHours,
      observatories: networkObservatories,
      observations,
      durationMs: (observation, observatoryId) => estimatedSecondsOf({ doc: observation.doc, observatory: byId.get(observatoryId)?.doc ?? {} }) * 1000,
      allocations,
    },
  };
}
