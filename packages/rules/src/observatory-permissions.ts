/** The four observatory permissions, weakest first. */
export const observatoryPermissionKeys = ["can_view", "can_observe", "can_operate", "can_admin"] as const;
export type ObservatoryPermissionKey = (typeof observatoryPermissionKeys)[number];
export type ObservatoryPermissions = Record<ObservatoryPermissionKey, boolean>;

/**
 * Permissions are ordered: administering implies operating, operating implies observing, and
 * any permission implies viewing. Grants are closed under that order before they are combined,
 * so "can_admin" alone never leaves an administrator unable to see the observatory; the SPA's
 * checkboxes show grants the same way.
 */
export function closePermissions(permissions: ObservatoryPermissions): ObservatoryPermissions {
  const can_admin = permissions.can_admin;
  const can_operate = can_admin || permissions.can_operate;
  const can_observe = can_operate || permissions.can_observe;
  const can_view = can_observe || permissions.can_view;
  return { can_view, can_observe, can_operate, can_admin };
}
