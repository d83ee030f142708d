import { Badge } from "../components/Badge";
import { severityInfo, statusInfo } from "./labels";
import { isScheduled, type Announcement } from "./types";

export function SeverityBadge({ severity }: { severity: Announcement["severity"] }) {
  const info = severityInfo[severity];
  return <Badge tone={info.tone}>{info.label}</Badge>;
}

/** The stored status, with "Scheduled" for an active announcement whose start lies ahead. */
export function StatusBadge({ announcement }: { announcement: Pick<Announcement, "status" | "startsAt"> }) {
  if (isScheduled(announcement)) return <Badge tone="amber">Scheduled</Badge>;
  const info = statusInfo[announcement.status];
  return <Badge tone={info.tone}>{info.label}</Badge>;
}
