import { z } from "zod";
import { defineJob } from "../../platform/jobs/define-job";
import { failObservationCleanup, runObservationCleanup } from "./observation-cleanup";

const id = z.string().min(1);

/** Deletes every observation marked at its start (cutoff), with histories, files and objects; `jobs` holds its progress. */
export const observationCleanupJob = defineJob({
  name: "observation_cleanup",
  payload: z.object({ jobId: id, cutoff: z.iso.datetime(), actorId: id.nullable(), backupId: id.nullable().optional() }),
  maxAttempts: 5,
  // A retry finishes what a killed run left: each batch's records, then their objects.
  run: ({ jobId, cutoff, actorId, backupId }, { deps }) => runObservationCleanup({ deps, jobId, cutoff, actorId, backupId }),
  afterLastAttempt: ({ jobId }, { deps, reason }) => failObservationCleanup({ deps, jobId, error: reason }),
  tracked: {},
});
