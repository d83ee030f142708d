/**
 * The scheduling engine: pure functions over plain inputs (observations, an observatory's state
 * and location, the moment asked about). It reads no database and no clock; the domain loads the
 * inputs and calls it, so dispatch, the queue, the night plan and the forecast decide alike.
 */
export { targetAltitude } from "./sky";
export { skyModel, type SkyModel } from "./sky-model";
export { moonOverNight, nightOf, shiftDate, type MoonOverNight, type Night } from "./night";
export { twilightBoundaries } from "./twilight-boundaries";
export {
  finishLimits,
  isDaylight,
  observatoryReasons,
  observatoryStateOf,
  planQueue,
  presentQueueBlock,
  queueBlockCodes,
  type ObservatoryState,
  type QueueBlock,
} from "./queue";
export { DISPATCH_WINDOW, runDispatchForward } from "./plan";
export { inDispatchOrder } from "./dispatch-order";
export { currentNightDate, planNights, type PlanInputs, type PlannedNight } from "./night-plan";
export { planNetwork } from "./network/plan";
export { NetworkPlanCache } from "./network/instance";
export { PLAN_STEP_MS } from "./network/inputs";
export type { NetworkAllocation, NetworkBlock, NetworkObservation, NetworkObservatory, NetworkPlan, NetworkPlanInput } from "./network/inputs";
