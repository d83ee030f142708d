import { auditLogCollection, type AuditLogDoc } from "@meridian/db";
import type { InTransaction } from "./transaction";

export interface AuditActor {
  id: string;
  name: string;
}

/**
 * Appends to the audit log in the actor's transaction, with names as they are now. Plumbing, not the feature audit (which
 * reads the log): every feature and the jobs runtime write it.
 */
export async function recordAudit(entry: {
  t: Pick<InTransaction, "tx">;
  actor: AuditActor | null;
  action: string;
  target: AuditLogDoc["target"];
  scope: AuditLogDoc["scope"];
  before?: unknown;
  after?: unknown;
}) {
  await auditLogCollection.insert(entry.t.tx, {
    action: entry.action,
    actorId: entry.actor?.id ?? null,
    actorName: entry.actor?.name ?? null,
    target: entry.target,
    scope: entry.scope,
    before: entry.before ?? null,
    after: entry.after ?? null,
  });
}
