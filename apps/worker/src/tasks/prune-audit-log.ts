import { pruneAuditLog } from "@meridian/domain/audit";
import { jobContracts } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

export const pruneAuditLogTask = defineTask(jobContracts.prune_audit_log, async (_payload, { deps }) => {
  await pruneAuditLog({ db: deps.db, now: deps.now(), keepDays: deps.env.AUDIT_LOG_KEEP_DAYS });
});
