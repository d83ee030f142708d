// The door of the feature analytics: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export { analyticsSchema, readAnalytics, refreshAnalytics } from "./analytics";
