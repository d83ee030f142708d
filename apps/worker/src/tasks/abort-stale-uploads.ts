import { abortStaleUploads, jobContracts } from "@meridian/domain";
import { defineTask } from "../define-task";

export const abortStaleUploadsTask = defineTask(jobContracts.abort_stale_uploads, async (payload, { deps }) => {
  await abortStaleUploads({ deps, olderThanMs: payload.olderThanMs });
});
