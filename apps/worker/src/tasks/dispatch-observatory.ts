import { dispatchObservatory } from "@meridian/domain/observations";
import { jobContracts } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

export const dispatchObservatoryTask = defineTask(jobContracts.dispatch_observatory, async (payload, { deps }) => {
  await dispatchObservatory({ deps, observatoryId: payload.observatoryId });
});
