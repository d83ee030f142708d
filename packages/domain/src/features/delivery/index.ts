// The door of the feature delivery: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
import { deliverFilesWith } from "../observations";
import { pendingDelivery, queueDelivery } from "./deliver-file";

// The door of observations delivery plugs into: a file stored for an observation with a storage destination starts
// with a pending copy, queued with the file's record.
deliverFilesWith({ pending: pendingDelivery, queue: queueDelivery });
export { abortStaleDestinationUploads } from "./left-uploads";
export { pendingDelivery, queueDelivery } from "./deliver-file";
export { retryFileDelivery, testStorageDestination } from "./operate-deliveries";
