// The door of the feature delivery: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export { deliverFile } from "./deliver-file";
export { abortStaleDestinationUploads } from "./left-uploads";
export { retryFileDelivery, testStorageDestination } from "./operate-deliveries";
