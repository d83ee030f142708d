import { defineJob, scheduledPayload } from "../../platform/jobs/define-job";
import { pruneObservatoryHistory } from "./history-retention";

/** Keeps the newest `OBSERVATORY_HISTORY_KEEP` history entries of each observatory. */
export const pruneObservatoryHistoryJob = defineJob({
  name: "prune_observatory_history",
  payload: scheduledPayload,
  schedule: "10 4 * * *",
  run: (_payload, { deps }) => pruneObservatoryHistory({ db: deps.db, keepPerObservatory: deps.env.OBSERVATORY_HISTORY_KEEP }),
});
