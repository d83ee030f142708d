// The door of the feature allocations: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export { putAllocation, deleteAllocation, listAllocations, getProjectUsage } from "./allocations";
