import { useId, type ReactNode } from "react";
import { Info, OctagonAlert, TriangleAlert } from "lucide-react";
import { formatDateTime } from "../lib/format";
import { SeverityBadge } from "./AnnouncementBadges";
import { severityInfo } from "./labels";
import type { Announcement } from "./types";

const severityIcons = { info: Info, warning: TriangleAlert, critical: OctagonAlert } as const;

/**
 * One announcement as its recipients read it, coloured by severity: title, message, where it comes
 * from and when. `actions` (Acknowledge, Recipients…) sit at its right.
 */
export function AnnouncementCallout({ announcement, origin, actions }: { announcement: Announcement; origin: ReactNode; actions?: ReactNode }) {
  const titleId = useId();
  const info = severityInfo[announcement.severity];
  const Icon = severityIcons[announcement.severity];
  return (
    <article aria-labelledby={titleId} className={`rounded-lg p-4 ring-1 ring-inset ${info.banner}`}>
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start">
        <Icon aria-hidden="true" className={`hidden size-5 shrink-0 sm:block ${info.icon}`} />
        <div className="min-w-0 flex-1">
          <div className="flex flex-wrap items-center gap-2">
            <h3 id={titleId} className="text-sm font-semibold break-words">
              {announcement.title}
            </h3>
            <SeverityBadge severity={announcement.severity} />
          </div>
          <p className="mt-1 text-sm break-words whitespace-pre-line">{announcement.message}</p>
          <p className="mt-2 text-xs opacity-75">
            {origin} · <time dateTime={announcement.startsAt}>{formatDateTime(announcement.startsAt)}</time>
            {announcement.expiresAt ? (
              <>
                {" "}
                · until <time dateTime={announcement.expiresAt}>{formatDateTime(announcement.expiresAt)}</time>
              </>
            ) : null}
          </p>
        </div>
        {actions ? <div className="flex shrink-0 flex-wrap gap-2">{actions}</div> : null}
      </div>
    </article>
  );
}
