import { jobContracts, pruneObservatoryHistory } from "@meridian/domain";
import { defineTask } from "../define-task";

export const pruneObservatoryHistoryTask = defineTask(jobContracts.prune_observatory_history, async (_payload, { deps }) => {
  await pruneObservatoryHistory({ db: deps.db, keepPerObservatory: deps.env.OBSERVATORY_HISTORY_KEEP });
});
