import { z } from "zod";
import { defineJob } from "../../platform/jobs/define-job";
import { analyseFrame, ANALYSIS_ATTEMPTS, FRAME_ANALYSIS_FLAG } from "./analyse-frame";
import { giveUpFrameAnalysis } from "./give-up-analysis";
import { repeatAfterAnalysis } from "./repeat-rejected";

const id = z.string().min(1);

/**
 * One frame's analysis (header, stars, plate solve, grade): `analysisId` names the request it answers. Every way an
 * analysis can fail is recorded on the frame; graphile-worker's retry is for an attempt that was killed.
 */
export const analyseFrameJob = defineJob({
  name: "analyse_frame",
  payload: z.object({ fileId: id, analysisId: id }),
  maxAttempts: ANALYSIS_ATTEMPTS,
  // A waiting analysis of the same file is replaced.
  jobKey: ({ fileId }) => `frame:${fileId}`,
  flags: [FRAME_ANALYSIS_FLAG],
  async run(payload, { deps, attempt }) {
    const outcome = await analyseFrame({ deps, ...payload });
    attempt.logger.debug(`analysis of ${payload.fileId}: ${outcome}`);
    // Also when this run wrote nothing: an attempt killed after its write left the judgement to this one.
    await repeatAfterAnalysis({ deps, fileId: payload.fileId });
  },
  async giveUp({ deps, payload, reason }) {
    await giveUpFrameAnalysis({ deps, fileId: String(payload.fileId), analysisId: String(payload.analysisId), reason });
    // The frame's end may be its observation's last analysis: its repeat is judged then.
    await repeatAfterAnalysis({ deps, fileId: String(payload.fileId) });
  },
  supersededByKey: {},
});
