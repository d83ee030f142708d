// The door of the feature network: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export { PLANNING_LOCK } from "./make-plan";
export { getNetworkPlan, MAX_PLAN_OBSERVATORIES, networkPlanQuerySchema, networkPlanSchema } from "./read-plan";
export { getObservationPlanPlace, observationPlanPlaceSchema } from "./read-plan-place";
