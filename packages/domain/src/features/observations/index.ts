// The door of the feature observations: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
import { moveObservationsWith } from "../observatories";
import { moveObservation, queueDispatch, queueNetworkPlan } from "./transitions";
import { queueReassignCheck } from "./failover";

// The door observatories declare: an observatory that can take work again queues a dispatch, and one going offline or
// removed moves the observations it holds, through the one writer of statuses; declared here where the surface is.
moveObservationsWith({ moveObservation, queueDispatch, queueNetworkPlan, queueReassignCheck });
export * from "./schemas";
export { listObservationsAsJson, listObservationsCached } from "./observation-pages";
export { DISPATCH_TRACE_CHANNEL, markDispatch, type DispatchMark, type DispatchStage } from "./dispatch-trace";
export {
  createObservation,
  listObservations,
  getObservation,
  updateObservation,
  cancelObservation,
  changeObservationStatus,
  reportObservationStatus,
  listObservationHistory,
} from "./observations";
export { dispatchObservatory, getObservatoryQueue, observatoriesAwaitingDispatch, statusesAtObservatory, unstartedAssignments } from "./dispatch";
export { FORECAST_NIGHTS, PLAN_NIGHTS_AHEAD, forecastDraft, getObservationForecast, getObservatoryPlan } from "./night-plan";
// The scheduling engine is @meridian/scheduler; these stay here for the code that took them from the domain.
export { nightOf, runDispatchForward, skyModel, planQueue, queueBlockCodes, finishLimits, targetAltitude } from "@meridian/scheduler";
export { queueDispatch, queueDispatchAlone, queueNetworkPlan, moveObservation, runAfterEveryMove } from "./transitions";
export { uploadObservationFile, listObservationFiles, openObservationFile, MAX_OBSERVATION_FILES } from "./files";
export { loadObservationAccess, observationReaderIds, readableBy } from "./access";
export { presentFile } from "./files";
export { zipOfStoredFiles } from "./files-archive";
export { holdProjectForObservation, insertObservation, type NewObservationFields } from "./insert";
export { holdLiveObservatories } from "./candidates";
export { recordHistoryNote } from "./transitions";
export { exposureProgress, frameTallies, type ExposureProgress } from "./observation-progress";
export { MAX_UNFINISHED_OBSERVATIONS } from "./insert";
export { openObservationArchive } from "./files-archive";
export { exportObservations, csvField } from "./observation-export";
export { type ObservationFilter } from "./observation-query";
export { reportStaleObservations } from "./stale-monitor";
export { reassignFromUnavailableObservatories } from "./failover";
export * from "./operate";
export * from "./bulk";
export { fileKindOf } from "./files";
export { readFramesWith } from "./frame-door";
export { estimatedSecondsOf } from "./timings";
export { observationVersion } from "./follow-plan";
export { hoursOf, usedMs } from "./usage";
export { readableObservationIds } from "./access";
export { deliverFilesWith } from "./delivery-door";
