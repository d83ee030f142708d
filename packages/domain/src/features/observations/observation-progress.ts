import type { Executor, ObservationDoc, StoredDocument } from "@meridian/db";
import { sql } from "drizzle-orm";

/** How far a frame's EXPTIME may lie from an exposure line's seconds and still count on it. */
const EXPOSURE_TOLERANCE_SECONDS = 0.5;

/** One exposure line of a target and the frames counted on it (contract: `observation.progress`). */
export interface ExposureProgress {
  targetName: string;
  filter: string;
  exposureSeconds: number;
  desired: number;
  acquired: number;
  accepted: number;
}

/** An observation's analysed frames of one kind (target, FILTER, EXPTIME): how many, and how many accepted. */
export type FrameTally = {
  targetName: string | null;
  filter: string | null;
  exposureSeconds: number | null;
  acquired: number;
  accepted: number;
};

type Targets = ObservationDoc["targets"];

const sameText = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * Whether a frame of this kind counts on the line: its target by name (case-insensitive), and FILTER
 * (trimmed, case-insensitive) and EXPTIME (± 0.5 s) where the frame carries them. A card the frame
 * lacks is not held against it: a camera without a filter wheel writes no FILTER, and its frames
 * count by target and exposure alone.
 */
function countsOn(tally: FrameTally, line: ExposureProgress): boolean {
  if (tally.targetName === null || !sameText(tally.targetName, line.targetName)) return false;
  if (tally.filter !== null && !sameText(tally.filter, line.filter)) return false;
  return tally.exposureSeconds === null || Math.abs(tally.exposureSeconds - line.exposureSeconds) <= EXPOSURE_TOLERANCE_SECONDS;
}

/** Gives `count` frames to the lines in order, each up to what it asks for; the last takes what is left over. */
function share(lines: ExposureProgress[], key: "acquired" | "accepted", count: number) {
  let left = count;
  lines.forEach((line, index) => {
    const taken = index === lines.length - 1 ? left : Math.min(left, Math.max(0, line.desired - line[key]));
    line[key] += taken;
    left -= taken;
  });
}

/**
 * One row per exposure line of the targets, in their order, with the frames counted on it. A frame
 * matching no line counts nowhere; one matching several alike lines fills them in order.
 */
export function exposureProgress(options: { targets: Targets; tallies: readonly FrameTally[] }): ExposureProgress[] {
  const rows = options.targets.flatMap((target) =>
    target.exposures.map((exposure): ExposureProgress => ({
      targetName: target.name,
      filter: exposure.filter,
      exposureSeconds: exposure.exposureSeconds,
      desired: exposure.count,
      acquired: 0,
      accepted: 0,
    })),
  );
  for (const tally of options.tallies) {
    const lines = rows.filter((line) => countsOn(tally, line));
    if (lines.length === 0) continue;
    share(lines, "acquired", tally.acquired);
    share(lines, "accepted", tally.accepted);
  }
  return rows;
}

/**
 * The analysed frames of these observations, grouped by what matching reads (target, FILTER,
 * EXPTIME): one query for a whole page, through the files' index on their observation. A frame
 * still queued, or failed, has no header yet and counts nowhere.
 */
export async function frameTallies(options: { db: Executor; observationIds: readonly string[] }): Promise<Map<string, FrameTally[]>> {
  const ids = [...new Set(options.observationIds)];
  const tallies = new Map<string, FrameTally[]>();
  if (ids.length === 0) return tallies;
  const rows = await options.db.execute<FrameTally & { observationId: string }>(sql`
    select f.observation_id as "observationId", f.doc->'frame'->>'targetName' as "targetName",
           f.doc->'frame'->'header'->>'filter' as filter, (f.doc->'frame'->'header'->>'exposureSeconds')::float8 as "exposureSeconds",
           count(*)::int as acquired, (count(*) filter (where f.doc->'frame'->>'grade' = 'accepted'))::int as accepted
      from files f
     where f.observation_id in ${ids} and f.doc->'frame'->>'status' = 'analysed'
     group by 1, 2, 3, 4
     order by 1, 2, 3, 4`);
  for (const { observationId, ...tally } of rows) {
    const list = tallies.get(observationId);
    if (list) list.push(tally);
    else tallies.set(observationId, [tally]);
  }
  return tallies;
}

/** The progress of each of these observations, read in one query. */
export async function progressOfObservations(options: {
  db: Executor;
  observations: ReadonlyArray<StoredDocument<ObservationDoc>>;
}): Promise<(observation: StoredDocument<ObservationDoc>) => ExposureProgress[]> {
  const tallies = await frameTallies({ db: options.db, observationIds: options.observations.map((observation) => observation.id) });
  return (observation) => exposureProgress({ targets: observation.doc.targets, tallies: tallies.get(observation.id) ?? [] });
}

/** A new observation's progress: nothing acquired yet. */
export const progressBeforeFrames = (targets: Targets) => exposureProgress({ targets, tallies: [] });
