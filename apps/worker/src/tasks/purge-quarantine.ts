import { purgeQuarantine } from "@meridian/domain/integrity";
import { jobContracts } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

export const purgeQuarantineTask = defineTask(jobContracts.purge_quarantine, async (_payload, { deps }) => {
  await purgeQuarantine({ deps });
});
