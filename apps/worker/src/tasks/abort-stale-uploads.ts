import { abortStaleDestinationUploads, abortStaleUploads, jobContracts } from "@meridian/domain";
import { defineTask } from "../define-task";

// The main store, then every organization's S3 destination: neither one's failure keeps the other uncleaned.
export const abortStaleUploadsTask = defineTask(jobContracts.abort_stale_uploads, async (payload, { deps }) => {
  const outcomes = await Promise.allSettled([
    abortStaleUploads({ deps, olderThanMs: payload.olderThanMs }),
    abortStaleDestinationUploads({ deps, olderThanMs: payload.olderThanMs }),
  ]);
  for (const outcome of outcomes) if (outcome.status === "rejected") throw outcome.reason;
});
