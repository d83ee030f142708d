// The door of the feature integrity: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export { startIntegrityScan, runIntegrityScan, scanOptionsFor, THREADED_SCAN_DOCUMENTS } from "./scan";
export * from "./queries";
export { repairIntegrityIssue, purgeQuarantine, legacyCapturedFileKey } from "./repair";
export { startBulkRepair, runBulkRepair } from "./bulk-repair";
export { startScheduledScans } from "./schedule";
export { storageFindings } from "./storage-check";
export { startIntegrityScanIn } from "./scan";
