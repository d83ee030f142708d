import { z } from "zod";
import { defineJob } from "../../platform/jobs/define-job";
import { removeAbandonedStoreWrites } from "../../platform/storage/abandoned-partials";
import { abortStaleUploads } from "../../platform/storage/stale-uploads";
import { CRASH_RETRIES, deliverFile, giveUpDelivery } from "./deliver-file";
import { abortStaleDestinationUploads } from "./left-uploads";

const id = z.string().min(1);

/**
 * One attempt at copying a file to its observation's storage destination (`files.doc.deliveries` holds its state).
 * A failed attempt queues the next one itself (waits of minutes to hours, contract: 8 over 12 h);
 * graphile-worker's own retry is for an attempt that was killed mid-way.
 */
export const deliverFileJob = defineJob({
  name: "deliver_file",
  payload: z.object({ fileId: id, destinationId: id }),
  maxAttempts: CRASH_RETRIES,
  // A waiting delivery of the same file and destination is replaced.
  jobKey: ({ fileId, destinationId }) => `deliver:${fileId}:${destinationId}`,
  async run(payload, { deps, attempt }) {
    const outcome = await deliverFile({ deps, ...payload });
    attempt.logger.debug(`delivery of ${payload.fileId} to ${payload.destinationId}: ${outcome}`);
  },
  // Its attempts ran out without one recording its end: they were killed, or threw past the handling in `deliverFile`.
  giveUp: ({ deps, payload, reason }) => giveUpDelivery({ deps, fileId: String(payload.fileId), destinationId: String(payload.destinationId), reason }),
});

/**
 * Aborts multipart uploads begun more than a day ago (or `olderThanMs`) and never finished: what killed processes left, in the
 * main store, every organization's S3 destination, and the embedded store's half-written files: no one's failure keeps the others uncleaned.
 */
export const abortStaleUploadsJob = defineJob({
  name: "abort_stale_uploads",
  payload: z.object({ olderThanMs: z.number().int().min(0).optional() }),
  schedule: "30 3 * * *",
  async run(payload, { deps }) {
    const outcomes = await Promise.allSettled([
      abortStaleUploads({ deps, olderThanMs: payload.olderThanMs }),
      abortStaleDestinationUploads({ deps, olderThanMs: payload.olderThanMs }),
      removeAbandonedStoreWrites({ deps }),
    ]);
    for (const outcome of outcomes) if (outcome.status === "rejected") throw outcome.reason;
  },
});
