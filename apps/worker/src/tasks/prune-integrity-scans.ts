import { pruneIntegrityScans } from "@meridian/domain/integrity";
import { jobContracts } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

export const pruneIntegrityScansTask = defineTask(jobContracts.prune_integrity_scans, async (_payload, { deps }) => {
  await pruneIntegrityScans({ deps, keep: deps.env.INTEGRITY_SCANS_KEEP });
});
