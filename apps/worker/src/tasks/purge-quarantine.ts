import { jobContracts, purgeQuarantine } from "@meridian/domain";
import { defineTask } from "../define-task";

export const purgeQuarantineTask = defineTask(jobContracts.purge_quarantine, async (_payload, { deps }) => {
  await purgeQuarantine({ deps });
});
