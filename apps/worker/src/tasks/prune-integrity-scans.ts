import { jobContracts, pruneIntegrityScans } from "@meridian/domain";
import { defineTask } from "../define-task";

export const pruneIntegrityScansTask = defineTask(jobContracts.prune_integrity_scans, async (_payload, { deps }) => {
  await pruneIntegrityScans({ deps, keep: deps.env.INTEGRITY_SCANS_KEEP });
});
