// The door of the feature audit: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export { listAuditLog } from "./list-audit";
export { recordAudit } from "./record-audit";
export type { AuditActor } from "./record-audit";
export { auditColumns, auditCursor, pageOfAudit } from "./list-audit";
