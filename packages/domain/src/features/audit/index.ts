// The door of the feature audit: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export { listAuditLog, type AuditFilter } from "./list-audit";
export { pruneAuditLog } from "./audit-retention";
