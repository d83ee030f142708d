import { abortStaleDestinationUploads } from "@meridian/domain/delivery";
import { abortStaleUploads, jobContracts, removeAbandonedStoreWrites } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

// The main store, every organization's S3 destination, and the embedded store's half-written files: no one's failure keeps the others uncleaned.
export const abortStaleUploadsTask = defineTask(jobContracts.abort_stale_uploads, async (payload, { deps }) => {
  const outcomes = await Promise.allSettled([
    abortStaleUploads({ deps, olderThanMs: payload.olderThanMs }),
    abortStaleDestinationUploads({ deps, olderThanMs: payload.olderThanMs }),
    removeAbandonedStoreWrites({ deps }),
  ]);
  for (const outcome of outcomes) if (outcome.status === "rejected") throw outcome.reason;
});
