import { observatoryPermissionKeys, type OrganizationPermissions } from "@meridian/db";
import { sql, type SQL } from "drizzle-orm";

/**
 * The two rules several queries share, in one place each, in SQL and in code, so recipient
 * resolution, permission resolution, senders and the managed lists cannot come to disagree.
 */

/** A stored observatory grant (a jsonb expression such as `m.doc->'permissions'`) holds at least one permission. */
export function hasAnyObservatoryGrant(grant: string): SQL {
  return sql.raw(`(${observatoryPermissionKeys.map((key) => `(${grant}->>'${key}')::boolean`).join(" or ")})`);
}

/** What makes an organization member one of its administrators, besides owning it. */
const ORGANIZATION_ADMIN_PERMISSIONS = ["can_manage_members", "can_manage_observatories"] as const satisfies ReadonlyArray<keyof OrganizationPermissions>;

export function isOrganizationAdmin(permissions: OrganizationPermissions): boolean {
  return ORGANIZATION_ADMIN_PERMISSIONS.some((key) => permissions[key]);
}

/** The same rule over a stored membership (`om` an organization_members alias). */
export function isOrganizationAdminMembership(membership: string): SQL {
  return sql.raw(`(${ORGANIZATION_ADMIN_PERMISSIONS.map((key) => `(${membership}.doc->'permissions'->>'${key}')::boolean`).join(" or ")})`);
}
