// The door of the feature health: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export { checkHealth } from "./check-health";
export { noteDatabaseOutOfSpace } from "./database-space";
