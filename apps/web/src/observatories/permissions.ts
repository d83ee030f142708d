import { closePermissions, observatoryPermissionKeys, type ObservatoryPermissionKey, type ObservatoryPermissions } from "@meridian/rules";
import type { RouterOutputs } from "../organizations/types";

export { closePermissions, observatoryPermissionKeys, type ObservatoryPermissionKey, type ObservatoryPermissions };

export type Observatory = RouterOutputs["observatories"]["get"];
export type ObservatoryMembers = RouterOutputs["observatories"]["members"];
export type ObservatoryUserMember = ObservatoryMembers["users"][number];
export type ObservatoryOrganizationMember = ObservatoryMembers["organizations"][number];
export type MyObservatoryPermissions = RouterOutputs["observatories"]["myPermissions"];
export type PermissionSource = MyObservatoryPermissions["sources"][number];
export type HistoryEntry = RouterOutputs["observatories"]["history"]["items"][number];

export const observatoryPermissionInfo: Record<ObservatoryPermissionKey, { label: string; badge: string; description: string }> = {
  can_view: { label: "View", badge: "Can view", description: "See the observatory, its status, members and history." },
  can_observe: { label: "Observe", badge: "Can observe", description: "Submit observations." },
  can_operate: { label: "Operate", badge: "Can operate", description: "Control the equipment and the observing queue." },
  can_admin: { label: "Admin", badge: "Can admin", description: "Manage members, permissions and settings." },
};

/** Checking a permission grants what it implies; unchecking one takes away what implies it. */
export function setObservatoryPermission(permissions: ObservatoryPermissions, key: ObservatoryPermissionKey, checked: boolean): ObservatoryPermissions {
  const index = observatoryPermissionKeys.indexOf(key);
  const closed = closePermissions(permissions);
  return Object.fromEntries(
    observatoryPermissionKeys.map((name, position) => [name, checked ? closed[name] || position <= index : closed[name] && position < index]),
  ) as ObservatoryPermissions;
}

export const grantedPermissions = (permissions: ObservatoryPermissions) => observatoryPermissionKeys.filter((key) => permissions[key]);
