// The door of the feature system: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export { notifyServerStart } from "./notify-start";
export * from "./server-settings";
export { readMaintenance, endMaintenance, refuseWritesDuringMaintenance, maintenanceStatusSchema, type MaintenanceStatus } from "./maintenance";
export { beginMaintenanceIn } from "./maintenance";
