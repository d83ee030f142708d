import { sql } from "drizzle-orm";
import { z } from "zod";

/** One observatory's frames whose analysis ended in the summary's window (by `analysedAt`). */
export interface FrameFigures {
  analysed: number;
  accepted: number;
  failed: number;
  medianFwhmArcsec: number | null;
}

/** The row's columns the summary's files query adds for frames: `f` is the files table. */
export type FrameColumns = {
  frames_analysed: number;
  frames_accepted: number;
  frames_failed: number;
  frames_median_fwhm: number | null;
};

/**
 * The frame figures as aggregates of the files query the summary reads anyway (one pass over the
 * files, not two): frames analysed and failed since `sinceInstant`, those accepted, and the median
 * FWHM of the analysed ones that have one. `analysedAt` is compared as the ISO text the server
 * writes, so no stored text can make the refresh fail on a cast.
 */
export const frameColumns = (sinceInstant: string) => {
  const frame = sql`f.doc->'frame'`;
  const inWindow = sql`${frame}->>'analysedAt' >= ${sinceInstant}`;
  const analysed = sql`${frame}->>'status' = 'analysed' and ${inWindow}`;
  return sql`
    count(*) filter (where ${analysed})::int as frames_analysed,
    count(*) filter (where ${analysed} and ${frame}->>'grade' = 'accepted')::int as frames_accepted,
    count(*) filter (where ${frame}->>'status' = 'failed' and ${inWindow})::int as frames_failed,
    percentile_cont(0.5) within group (order by (${frame}->>'fwhmArcsec')::float8)
      filter (where ${analysed} and jsonb_typeof(${frame}->'fwhmArcsec') = 'number') as frames_median_fwhm`;
};

export const frameFiguresOf = (row: FrameColumns): FrameFigures => ({
  analysed: row.frames_analysed,
  accepted: row.frames_accepted,
  failed: row.frames_failed,
  medianFwhmArcsec: row.frames_median_fwhm === null ? null : Number(row.frames_median_fwhm),
});

const share = (part: number, whole: number) => (whole === 0 ? null : part / whole);

export const frameAnalyticsShape = (days: number) => ({
  framesAnalysed: z.number().int().describe(`Frames whose analysis ended \`analysed\` in the last ${days} days (UTC, by analysedAt)`),
  framesFailed: z.number().int().describe(`Frames whose analysis ended \`failed\` (unreadable, or over the time limit) in the same days`),
  framesAcceptedShare: z.number().nullable().describe("Of the frames analysed in those days, the share graded `accepted` (0 to 1); null when none was"),
  framesByObservatory: z
    .array(
      z.object({
        observatoryId: z.string(),
        observatoryName: z.string().nullable(),
        analysed: z.number().int(),
        accepted: z.number().int(),
        failed: z.number().int(),
        acceptedShare: z.number().nullable().describe("accepted / analysed; null when none was analysed"),
        medianFwhmArcsec: z.number().nullable().describe("The median of the analysed frames' fwhmArcsec; null when none has one"),
      }),
    )
    .describe(`The same per observatory (the observation's), those with a frame analysed or failed in the last ${days} days, most analysed first (extension)`),
});

/** The frame figures of the observatories a caller may see, totalled and per observatory (names filled in by the caller). */
export function presentFrameFigures(figures: Array<{ observatoryId: string; frames: FrameFigures | undefined }>) {
  let analysed = 0;
  let accepted = 0;
  let failed = 0;
  const byObservatory = [];
  for (const { observatoryId, frames } of figures) {
    if (!frames || frames.analysed + frames.failed === 0) continue;
    analysed += frames.analysed;
    accepted += frames.accepted;
    failed += frames.failed;
    byObservatory.push({ observatoryId, ...frames, acceptedShare: share(frames.accepted, frames.analysed) });
  }
  byObservatory.sort((a, b) => b.analysed - a.analysed || b.failed - a.failed || a.observatoryId.localeCompare(b.observatoryId));
  return { framesAnalysed: analysed, framesFailed: failed, framesAcceptedShare: share(accepted, analysed), byObservatory };
}
