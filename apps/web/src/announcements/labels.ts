import type { BadgeTone } from "../components/Badge";
import type { AnnouncementScope, AnnouncementSeverity, AnnouncementStatus, DeliveryType, Recipient, TargetKind } from "./types";

export const severityInfo: Record<AnnouncementSeverity, { label: string; tone: BadgeTone; banner: string; icon: string }> = {
  info: { label: "Info", tone: "sky", banner: "bg-sky-50 text-sky-900 ring-sky-200", icon: "text-sky-600" },
  warning: { label: "Warning", tone: "amber", banner: "bg-amber-50 text-amber-900 ring-amber-300", icon: "text-amber-600" },
  critical: { label: "Critical", tone: "red", banner: "bg-red-50 text-red-900 ring-red-300", icon: "text-red-600" },
};
export const severities = Object.keys(severityInfo) as AnnouncementSeverity[];

export const statusInfo: Record<AnnouncementStatus, { label: string; tone: BadgeTone }> = {
  active: { label: "Active", tone: "emerald" },
  acknowledged: { label: "Acknowledged", tone: "indigo" },
  expired: { label: "Expired", tone: "slate" },
  cancelled: { label: "Cancelled", tone: "red" },
};
export const statuses = Object.keys(statusInfo) as AnnouncementStatus[];

export const deliveryInfo: Record<DeliveryType, { label: string; description: string }> = {
  message: {
    label: "In the app",
    description: "Shown in Meridian until each recipient acknowledges it. (By email, recipients count as acknowledged once their email is sent.)",
  },
  email: { label: "By email", description: "Emailed; recipients count as acknowledged once it is sent." },
  both: { label: "In the app and by email", description: "Emailed and shown; emailed recipients count as acknowledged." },
};
export const deliveryTypes = Object.keys(deliveryInfo) as DeliveryType[];

export const scopeLabels: Record<AnnouncementScope, string> = {
  system: "System",
  observatory: "Observatory",
  organization: "Organization",
  project: "Project",
};

/** The system form's pickers, in the order they appear. */
export const targetKindInfo: Record<TargetKind, { label: string; all: string; search: string }> = {
  users: { label: "Users", all: "All users", search: "Search users by name or email" },
  observatories: { label: "Observatories", all: "Everyone with access to any observatory", search: "Search observatories" },
  organizations: { label: "Organizations", all: "Members of every organization", search: "Search organizations" },
  projects: { label: "Projects", all: "Members of every project", search: "Search projects" },
};
export const targetKinds = Object.keys(targetKindInfo) as TargetKind[];

/** How a recipient was reached: the most specific target that named them. */
export const viaLabels: Record<Recipient["via"], string> = {
  all_users: "All users",
  user: "Chosen user",
  observatory: "Observatory",
  organization: "Organization",
  project: "Project",
  scope: "Member",
};

export const plural = (count: number, one: string, many = `${one}s`) => `${count.toLocaleString()} ${count === 1 ? one : many}`;

/** What a sender reads once an announcement has gone out. */
export const sentNotice = (announcement: { title: string; recipientCount: number; startsAt: string }) =>
  new Date(announcement.startsAt).getTime() > Date.now()
    ? `${announcement.title} is scheduled for ${plural(announcement.recipientCount, "recipient")}.`
    : `${announcement.title} was sent to ${plural(announcement.recipientCount, "recipient")}.`;
