import { dispatchObservatory, jobContracts } from "@meridian/domain";
import { defineTask } from "../define-task";

export const dispatchObservatoryTask = defineTask(jobContracts.dispatch_observatory, async (payload, { deps }) => {
  await dispatchObservatory({ deps, observatoryId: payload.observatoryId });
});
