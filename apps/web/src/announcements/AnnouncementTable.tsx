import { useId, useState, type ReactNode } from "react";
import type { QueryKey } from "@tanstack/react-query";
import { Ban, Users } from "lucide-react";
import { Link } from "react-router-dom";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { LoadMoreButton } from "../components/LoadMoreButton";
import { QueryState } from "../components/QueryState";
import { ActionsCell, ActionsTh, DataTable, EmptyRow, td, Th } from "../components/Table";
import { summarizeError } from "../lib/errors";
import { formatDateTime, formatShortDateTime } from "../lib/format";
import { useCursorPages, type CursorPage } from "../lib/useCursorPages";
import { SeverityBadge, StatusBadge } from "./AnnouncementBadges";
import { scopeLabels, statusInfo } from "./labels";
import { scopePath } from "./scopeLinks";
import type { Announcement, AnnouncementStatus } from "./types";
import type { AnnouncementDialogs } from "./useAnnouncementDialogs";
import { StatusFilter } from "./StatusFilter";

export const ANNOUNCEMENT_PAGE_SIZE = 25;

/** One status filter's list: its cache key and how to fetch a page of it. */
export interface AnnouncementSource {
  queryKey: QueryKey;
  fetchPage(cursor: string | null, signal: AbortSignal): Promise<CursorPage<Announcement>>;
}

export interface AnnouncementTableProps {
  /** The section's heading: "System", "History". */
  title: string;
  /** The table's accessible name: "System announcements". */
  label: string;
  description?: string;
  /** Show which observatory, organization or project each belongs to. */
  showScope: boolean;
  source(status: AnnouncementStatus | undefined): AnnouncementSource;
  dialogs: AnnouncementDialogs;
  /** What the empty list says when no status filter is on: what would be here and how to send one. */
  empty: ReactNode;
}

/** Which observatory, organization or project it went to, under its title. */
function ScopeLine({ announcement }: { announcement: Announcement }) {
  if (announcement.scope === "system" || !announcement.scopeId) return null;
  return (
    <span className="mt-0.5 block text-xs text-slate-500">
      {scopeLabels[announcement.scope]}{" "}
      <Link to={scopePath(announcement.scope, announcement.scopeId)} className="font-medium text-slate-600 hover:text-indigo-600">
        {announcement.scopeName ?? "—"}
      </Link>
    </span>
  );
}

function When({ iso, fallback }: { iso: string | null; fallback: string }) {
  return iso ? (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {formatShortDateTime(iso)}
    </time>
  ) : (
    <>{fallback}</>
  );
}

/**
 * A sender's list of announcements, newest first and paged, with a status filter; each row opens
 * its recipients, and active ones may be cancelled.
 */
export function AnnouncementTable({ title, label, description, showScope, source, dialogs, empty }: AnnouncementTableProps) {
  const headingId = useId();
  const [status, setStatus] = useState<AnnouncementStatus | undefined>(undefined);
  const { queryKey, fetchPage } = source(status);
  const { query, items } = useCursorPages(queryKey, fetchPage);
  return (
    <section aria-labelledby={headingId} className="flex flex-col gap-3">
      <div className="flex flex-col gap-2 sm:flex-row sm:items-end sm:justify-between">
        <div className="min-w-0">
          <h2 id={headingId} className="text-base font-semibold text-slate-900">
            {title}
          </h2>
          {description ? <p className="text-sm text-slate-500">{description}</p> : null}
        </div>
        <StatusFilter label={`Show ${label.toLowerCase()}`} value={status} onChange={setStatus} />
      </div>
      <QueryState query={query} loading={`Loading ${label.toLowerCase()}`} error={`Could not load ${label.toLowerCase()}`}>
        {() => (
          <DataTable
            stackOnPhone
            label={label}
            columns={
              <>
                <Th>{showScope ? "Title and scope" : "Title"}</Th>
                <Th>Severity</Th>
                <Th>Status</Th>
                <Th>Acknowledged</Th>
                <Th className="hidden md:table-cell">Created</Th>
                <Th className="hidden lg:table-cell">Expires</Th>
                <ActionsTh />
              </>
            }
          >
            {items.length === 0 ? (
              <EmptyRow columns={7}>{status ? `No ${statusInfo[status].label.toLowerCase()} announcements.` : empty}</EmptyRow>
            ) : (
              items.map((announcement) => (
                <tr key={announcement.id} className="hover:bg-slate-50">
                  <td className={`${td} min-w-44`}>
                    <span className="line-clamp-2 font-medium break-words text-slate-900">{announcement.title}</span>
                    {showScope ? <ScopeLine announcement={announcement} /> : null}
                  </td>
                  <td className={td}>
                    <SeverityBadge severity={announcement.severity} />
                  </td>
                  <td className={td}>
                    <StatusBadge announcement={announcement} />
                  </td>
                  <td className={`${td} whitespace-nowrap tabular-nums`}>
                    {announcement.acknowledgedCount.toLocaleString()} / {announcement.recipientCount.toLocaleString()}
                  </td>
                  <td className={`${td} hidden text-slate-500 md:table-cell`}>
                    <span className="block whitespace-nowrap">
                      <When iso={announcement.createdAt} fallback="—" />
                    </span>
                    <span className="block text-xs">by {announcement.createdByName}</span>
                  </td>
                  <td className={`${td} hidden whitespace-nowrap text-slate-500 lg:table-cell`}>
                    <When iso={announcement.expiresAt} fallback="Never" />
                  </td>
                  <ActionsCell>
                    {/* Icons only, to keep the row's facts in view; each names what it acts on. */}
                    <Button
                      variant="ghost"
                      title="Recipients"
                      aria-label={`Recipients of ${announcement.title}`}
                      icon={<Users aria-hidden="true" className="size-4" />}
                      onClick={() => dialogs.showRecipients(announcement)}
                    />
                    {announcement.status === "active" ? (
                      <Button
                        variant="ghost"
                        title="Cancel"
                        aria-label={`Cancel ${announcement.title}`}
                        icon={<Ban aria-hidden="true" className="size-4 text-red-600" />}
                        onClick={() => dialogs.askCancel(announcement)}
                      />
                    ) : null}
                  </ActionsCell>
                </tr>
              ))
            )}
          </DataTable>
        )}
      </QueryState>
      <LoadMoreButton query={query} />
      {query.isFetchNextPageError ? <Alert tone="error">Could not load more announcements: {summarizeError(query.error).message}</Alert> : null}
    </section>
  );
}
