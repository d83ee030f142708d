// The door of the feature cleanup: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export * from "./observation-cleanup";
