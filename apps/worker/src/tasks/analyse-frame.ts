import { analyseFrame, repeatAfterAnalysis } from "@meridian/domain/frames";
import { jobContracts } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

// Every way an analysis can fail is recorded on the frame; graphile-worker's retry is for an attempt that was killed.
export const analyseFrameTask = defineTask(jobContracts.analyse_frame, async (payload, { deps }, helpers) => {
  const outcome = await analyseFrame({ deps, ...payload });
  helpers.logger.debug(`analysis of ${payload.fileId}: ${outcome}`);
  // Also when this run wrote nothing: an attempt killed after its write left the judgement to this one.
  await repeatAfterAnalysis({ deps, fileId: payload.fileId });
});
