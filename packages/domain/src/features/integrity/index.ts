// The door of the feature integrity: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export { pruneIntegrityScans } from "./scan-retention";
export {
  startIntegrityScan,
  runIntegrityScan,
  failIntegrityScan,
  scanOptionsFor,
  scannableCollections,
  INTEGRITY_JOB_KIND,
  THREADED_SCAN_DOCUMENTS,
} from "./scan";
export * from "./queries";
export { repairIntegrityIssue, purgeQuarantine, QUARANTINE_PREFIX, legacyCapturedFileKey } from "./repair";
export { startBulkRepair, runBulkRepair, failBulkRepair, INTEGRITY_REPAIR_JOB_KIND } from "./bulk-repair";
export { startScheduledScans } from "./schedule";
export { storageFindings } from "./storage-check";
