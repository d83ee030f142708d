import type { RouterInputs, RouterOutputs } from "../organizations/types";

export type Announcement = RouterOutputs["announcements"]["managed"]["items"][number];
export type AnnouncementStatus = Announcement["status"];
export type AnnouncementSeverity = Announcement["severity"];
export type DeliveryType = Announcement["deliveryType"];
export type AnnouncementScope = Announcement["scope"];
export type ScopedKind = Exclude<AnnouncementScope, "system">;
export type RecipientsView = RouterOutputs["announcements"]["recipients"];
export type RecipientsInput = RouterInputs["announcements"]["recipients"];
export type Recipient = RecipientsView["items"][number];
export type AnnouncementStats = RouterOutputs["announcements"]["stats"]["scopes"][number];
export type TargetKind = RouterInputs["announcements"]["targetOptions"]["kind"];
export type TargetOption = RouterOutputs["announcements"]["targetOptions"]["items"][number];
export type Targets = RouterInputs["announcements"]["previewSystem"]["targets"];

/** Which announcements a call is about: `{scope: "system"}` or one observatory, organization or project. */
export type ScopeRef = { scope: "system" } | { scope: ScopedKind; scopeId: string };

/** The scope an announcement belongs to, as the procedures that act on it take it. */
export const refOf = (announcement: Pick<Announcement, "scope" | "scopeId">): ScopeRef =>
  announcement.scope === "system" ? { scope: "system" } : { scope: announcement.scope, scopeId: announcement.scopeId ?? "" };

/** Scheduled: active, but its start lies ahead, so nobody sees it yet. */
export const isScheduled = (announcement: Pick<Announcement, "status" | "startsAt">, now = Date.now()) =>
  announcement.status === "active" && new Date(announcement.startsAt).getTime() > now;
