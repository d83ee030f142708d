// The door of the feature permissions: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export * from "./observatory-permissions";
