import { tables } from "@meridian/db";
import { count, eq, type SQL } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import { AppError } from "./errors";
import type { InTransaction } from "./transaction";

/**
 * 409 CONFLICT saying `refusal` when `table` holds `cap` rows or more where `where` holds. The caller
 * holds the row lock that additions of such rows take turns under, so the count stays true until
 * its own addition commits and none passes the cap beside another.
 */
export async function refuseAtCap(options: { t: Pick<InTransaction, "tx">; table: PgTable; where: SQL; cap: number; refusal: string }) {
  const [row] = await options.t.tx.select({ count: count() }).from(options.table).where(options.where);
  if ((row?.count ?? 0) >= options.cap) throw new AppError("CONFLICT", options.refusal);
}

/**
 * Refuses one more member of an organization or project past `cap` (MAX_ORGANIZATION_MEMBERS,
 * MAX_PROJECT_MEMBERS), counted under the scope's row, which every addition locks first: an
 * organization's FOR UPDATE (an invitation's acceptance FOR NO KEY UPDATE), a project's FOR NO KEY
 * UPDATE (`holdProject`). Additions to one scope so count one after another.
 */
export function requireRoomInScope(options: { t: Pick<InTransaction, "tx">; scope: "organization" | "project"; id: string; cap: number }) {
  const { t, scope, id, cap } = options;
  const { organizationMembers, projectMembers } = tables;
  const [table, where] =
    scope === "organization" ? [organizationMembers, eq(organizationMembers.organizationId, id)] : [projectMembers, eq(projectMembers.projectId, id)];
  return refuseAtCap({ t, table, where, cap, refusal: `The ${scope} has ${cap} members, the most one may have; one must leave first` });
}
