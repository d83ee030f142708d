import { candidateObservatoryIdsOf, tables, type Executor, type ObservationDoc, type ObservatoryDoc, type StoredDocument } from "@meridian/db";
import { estimatedSeconds, type ObservatoryTiming } from "@meridian/rules";
import { inArray, sql } from "drizzle-orm";
import { progressOfObservations } from "./observation-progress";
import { observatoryTiming } from "../observatories";
import { presentObservation } from "./present";
import type { Observation } from "./schemas";

/** The timing settings of these observatories, in one query of just that part of their documents; defaults for one not found. */
export async function observationTimings(options: { db: Executor; observatoryIds: Iterable<string> }): Promise<(observatoryId: string) => ObservatoryTiming> {
  const ids = [...new Set(options.observatoryIds)];
  const { observatories } = tables;
  const rows =
    ids.length === 0
      ? []
      : await options.db
          .select({ id: observatories.id, settings: sql<{ slewSeconds?: number; readoutSeconds?: number } | null>`${observatories.doc}->'settings'` })
          .from(observatories)
          .where(inArray(observatories.id, ids));
  const timings = new Map(rows.map((row) => [row.id, observatoryTiming({ doc: { settings: row.settings ?? undefined } })]));
  return (observatoryId) => timings.get(observatoryId) ?? observatoryTiming({ doc: {} });
}

/** The observatory whose settings an estimate follows: where it runs, or while one with candidates waits, its first candidate. */
const timingObservatoryOf = (doc: ObservationDoc): string => doc.observatoryId ?? candidateObservatoryIdsOf(doc)[0]!;

/** Observations in their read shape, each with its estimate by its observatory's settings now and its progress: two queries for any number. */
export async function presentObservations(options: { db: Executor; observations: ReadonlyArray<StoredDocument<ObservationDoc>> }): Promise<Observation[]> {
  const { db, observations } = options;
  const [timingOf, progressOf] = await Promise.all([
    observationTimings({ db, observatoryIds: observations.map((observation) => timingObservatoryOf(observation.doc)) }),
    progressOfObservations({ db, observations }),
  ]);
  return observations.map((observation) =>
    presentObservation({ observation, timing: timingOf(timingObservatoryOf(observation.doc)), progress: progressOf(observation) }),
  );
}

/** One observation in its read shape. */
export async function presentOneObservation(options: { db: Executor; observation: StoredDocument<ObservationDoc> }): Promise<Observation> {
  const [presented] = await presentObservations({ db: options.db, observations: [options.observation] });
  return presented!;
}

/** How long an observation holds its observatory, by the observatory's settings now (what dispatch and the plan assume). */
export function estimatedSecondsOf(options: { doc: ObservationDoc; observatory: Pick<ObservatoryDoc, "settings"> }): number {
  return estimatedSeconds({ targets: options.doc.targets, timing: observatoryTiming({ doc: options.observatory }) });
}
