// The door of the feature audit: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export { listAuditLog } from "./list-audit";
export { recordAudit } from "../../platform/record-audit";
export type { AuditActor } from "../../platform/record-audit";
export { auditColumns, auditCursor, pageOfAudit } from "./list-audit";
