// The door of the feature notifications: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export { deliverPush, shouldRetry, type PushOutcome } from "./deliver-push";
export { queuePush, notifySystemEvent, queueObservationNotifications } from "./notify";
export { webPushConfigured, type PushMessage, type ChannelResult } from "./push-channels";
export * from "./settings";
