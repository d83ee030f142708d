import { defineJob, scheduledPayload } from "../../platform/jobs/define-job";
import { pruneAuditLog } from "./audit-retention";

/** Removes audit log entries written more than `AUDIT_LOG_KEEP_DAYS` ago. */
export const pruneAuditLogJob = defineJob({
  name: "prune_audit_log",
  payload: scheduledPayload,
  schedule: "45 4 * * *",
  run: (_payload, { deps }) => pruneAuditLog({ db: deps.db, now: deps.now(), keepDays: deps.env.AUDIT_LOG_KEEP_DAYS }),
});
