import type { Executor } from "@meridian/db";
import { DEFAULT_FRAME_GRADING, type FrameGrading } from "@meridian/rules/frames";
import { sql } from "drizzle-orm";
import type { Finding } from "./checks";

/** A frame still `queued` this long after its upload (or its last request to analyse it again) has lost its analysis. */
const FRAME_QUEUED_HOURS = 1;

/** Whether a frame queued since `queuedSince` (its record's last write) has waited too long at `now`. */
export const frameLeftQueued = ({ queuedSince, now }: { queuedSince: Date; now: Date }) =>
  now.getTime() - queuedSince.getTime() > FRAME_QUEUED_HOURS * 3_600_000;

/** A frame whose analysis never ran: its job was lost (a queue restored without it, say), or the workers are far behind. */
const frameNotAnalysed = ({
  fileId,
  filename,
  observationId,
  queuedSince,
}: {
  fileId: string;
  filename: string;
  observationId: string;
  queuedSince: Date;
}): Finding => ({
  severity: "warning",
  type: "status",
  code: "FRAME_NOT_ANALYSED",
  message:
    `${filename} has waited for its analysis since ${queuedSince.toISOString()}, more than ${FRAME_QUEUED_HOURS} hour: ` +
    "its job was lost, or no worker takes analyses",
  observationId,
  autoFixable: true,
  fix: {
    description: "Queue its analysis again, as POST /files/{id}/analyse does (a waiting analysis of the frame is replaced, so it is analysed once)",
    changes: [{ analyse: "files", id: fileId }],
  },
});

/** A completed observation none of whose solved frames lies within its project's maxOffsetArcmin of its target. */
const offTarget = ({ solved, nearestArcsec, maxOffsetArcmin }: { solved: number; nearestArcsec: number; maxOffsetArcmin: number }): Finding => ({
  severity: "info",
  type: "data_quality",
  code: "OFF_TARGET",
  message:
    `None of its ${solved} solved frame${solved === 1 ? "" : "s"} lies within ${maxOffsetArcmin}′ of its target (the project's maxOffsetArcmin); ` +
    `the nearest is ${(nearestArcsec / 60).toFixed(1)}′ away`,
  autoFixable: false,
  fix: null,
  nextStep:
    "Compare the target's coordinates with the frames' solved centres on the observation's page: a wrong position in the observation, " +
    "or the observatory's pointing (mount model, plate-solve sync) is off. Submit it again once corrected.",
});

/** What a scan's check of the documents alone noted for the frame checks: the batch's queued frames and completed observations. */
export interface FrameCandidates {
  queuedFrames: number[];
  completedObservations: Array<{ index: number; projectId: string }>;
}

/**
 * The frame checks of one scanned batch, each one bounded query over the batch's candidates
 * (never the whole table): files queued for more than FRAME_QUEUED_HOURS (FRAME_NOT_ANALYSED), and
 * completed observations whose solved frames all lie beyond their project's maxOffsetArcmin
 * (OFF_TARGET; skipped without solved frames, and for a project that switched the check off).
 */
export async function frameFindings(options: {
  db: Executor;
  ids: string[];
  candidates: FrameCandidates;
  now: Date;
}): Promise<Array<{ index: number; finding: Finding }>> {
  const { db, ids, candidates, now } = options;
  const findings: Array<{ index: number; finding: Finding }> = [];
  if (candidates.queuedFrames.length > 0) {
    const indexOf = new Map(candidates.queuedFrames.map((index) => [ids[index]!, index]));
    const cutoff = new Date(now.getTime() - FRAME_QUEUED_HOURS * 3_600_000).toISOString();
    // updated_at, not created_at: a frame asked to be analysed again was queued then, not at its upload.
    for (const row of await db.execute<{ id: string; filename: string; observation_id: string; queued_since: string }>(sql`
      select id, doc->>'filename' as filename, observation_id, updated_at as queued_since from files
       where id in ${[...indexOf.keys()]} and doc->'frame'->>'status' = 'queued' and updated_at < ${cutoff}::timestamptz`))
      findings.push({
        index: indexOf.get(row.id)!,
        finding: frameNotAnalysed({ fileId: row.id, filename: row.filename, observationId: row.observation_id, queuedSince: new Date(row.queued_since) }),
      });
  }
  if (candidates.completedObservations.length > 0) {
    const limits = await offsetLimits(db, [...new Set(candidates.completedObservations.map((entry) => entry.projectId))]);
    const checked = candidates.completedObservations.flatMap(({ index, projectId }) => {
      const maxOffsetArcmin = limits.get(projectId);
      return typeof maxOffsetArcmin === "number" ? [{ index, maxOffsetArcmin }] : [];
    });
    const nearest = new Map<string, { solved: number; nearest: number }>();
    if (checked.length > 0)
      for (const row of await db.execute<{ id: string; solved: number; nearest: number }>(sql`
        select observation_id as id, count(*)::int as solved, min((doc->'frame'->>'pointingOffsetArcsec')::float8) as nearest from files
         where observation_id in ${checked.map((entry) => ids[entry.index]!)}
           and doc->'frame'->>'status' = 'analysed' and jsonb_typeof(doc->'frame'->'pointingOffsetArcsec') = 'number'
         group by observation_id`))
        nearest.set(row.id, row);
    for (const { index, maxOffsetArcmin } of checked) {
      const frames = nearest.get(ids[index]!);
      // "Within" as grading holds it: a frame at the limit is on target.
      if (frames && frames.nearest > maxOffsetArcmin * 60)
        findings.push({ index, finding: offTarget({ solved: frames.solved, nearestArcsec: frames.nearest, maxOffsetArcmin }) });
    }
  }
  return findings;
}

/** Each project's maxOffsetArcmin: the contract's default for one that never set its grading (or is gone), null where the check is off. */
async function offsetLimits(db: Executor, projectIds: string[]) {
  const limits = new Map<string, number | null>(projectIds.map((id) => [id, DEFAULT_FRAME_GRADING.maxOffsetArcmin]));
  for (const row of await db.execute<{ id: string; grading: FrameGrading | null }>(
    sql`select id, doc->'frameGrading' as grading from projects where id in ${projectIds}`,
  ))
    if (row.grading) limits.set(row.id, row.grading.maxOffsetArcmin);
  return limits;
}
