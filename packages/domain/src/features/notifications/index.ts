// The door of the feature notifications: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export { notifySystemEvent } from "./notify";
export * from "./settings";
export { countSendWithinHourlyLimit } from "./send-rate";
export { notifyUsers } from "./notify";
export { frameCounts } from "./frame-counts";
export { queueObservationNotifications } from "./notify";
