import { pruneObservatoryHistory } from "@meridian/domain/observatories";
import { jobContracts } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

export const pruneObservatoryHistoryTask = defineTask(jobContracts.prune_observatory_history, async (_payload, { deps }) => {
  await pruneObservatoryHistory({ db: deps.db, keepPerObservatory: deps.env.OBSERVATORY_HISTORY_KEEP });
});
