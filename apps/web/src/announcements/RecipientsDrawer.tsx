import { useState } from "react";
import { Alert } from "../components/Alert";
import { Badge } from "../components/Badge";
import { Drawer } from "../components/Drawer";
import { LoadMoreButton } from "../components/LoadMoreButton";
import { QueryState } from "../components/QueryState";
import { SelectField } from "../components/SelectField";
import { DataTable, EmptyRow, td, Th } from "../components/Table";
import { summarizeError } from "../lib/errors";
import { formatDateTime, formatShortDateTime } from "../lib/format";
import { pageInput, useCursorPages } from "../lib/useCursorPages";
import { trpc, trpcClient } from "../trpc";
import { StatusBadge } from "./AnnouncementBadges";
import { scopeLabels, viaLabels } from "./labels";
import { refOf, type Announcement, type RecipientsInput, type RecipientsView } from "./types";

const PAGE_SIZE = 50;

type StatusFilter = "all" | NonNullable<RecipientsInput["status"]>;
type Sort = NonNullable<RecipientsInput["sort"]>;
type Order = NonNullable<RecipientsInput["order"]>;

const countLabels: Array<[keyof RecipientsView["counts"], string]> = [
  ["total", "Recipients"],
  ["acknowledged", "Acknowledged"],
  ["pending", "Pending"],
  ["emailed", "Emailed"],
  ["seen", "Seen in the app"],
];

function When({ iso }: { iso: string | null }) {
  return iso ? (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {formatShortDateTime(iso)}
    </time>
  ) : (
    <span className="text-slate-400">—</span>
  );
}

/**
 * The status now, which may have moved on since the list the drawer was opened from: cancelled
 * (the view says so) or acknowledged by everyone (the counts say so, live).
 */
function CurrentStatus({ announcement, view }: { announcement: Announcement; view: RecipientsView | undefined }) {
  if (view?.cancellation) return <StatusBadge announcement={{ ...announcement, status: "cancelled" }} />;
  if (view && announcement.status === "active" && view.counts.total > 0 && view.counts.pending === 0)
    return <StatusBadge announcement={{ ...announcement, status: "acknowledged" }} />;
  return <StatusBadge announcement={announcement} />;
}

/**
 * Who received an announcement, for its senders: how many acknowledged, were emailed or were shown
 * it, and each recipient, filtered and sorted. The counts follow acknowledgments as they happen
 * (AnnouncementLiveUpdates refetches this view on `announcement.counts`).
 */
export function RecipientsDrawer({ announcement, onClose }: { announcement: Announcement; onClose(): void }) {
  const [status, setStatus] = useState<StatusFilter>("all");
  const [sort, setSort] = useState<Sort>("name");
  const [order, setOrder] = useState<Order>("asc");
  const input = { ref: refOf(announcement), id: announcement.id, sort, order, limit: PAGE_SIZE, ...(status === "all" ? {} : { status }) };
  const { query, items } = useCursorPages(trpc.announcements.recipients.infiniteQueryKey(input), (cursor, signal) =>
    trpcClient.announcements.recipients.query(pageInput(input, cursor), { signal }),
  );
  // Every page carries the counts; the first is refetched first, so it is the freshest.
  const view = query.data?.pages[0];
  const where = announcement.scope === "system" ? "System announcement" : `${scopeLabels[announcement.scope]} ${announcement.scopeName ?? ""}`.trim();

  return (
    <Drawer
      title={`Recipients of ${announcement.title}`}
      description={
        <span className="flex flex-wrap items-center gap-2">
          <CurrentStatus announcement={announcement} view={view} />
          <span>{where}</span>
          <span aria-hidden="true">·</span>
          <span>sent {formatDateTime(announcement.createdAt)}</span>
        </span>
      }
      onClose={onClose}
    >
      <div className="flex flex-col gap-5">
        {view?.cancellation ? (
          <Alert tone="error">
            <p className="font-medium">
              Cancelled {view.cancellation.cancelledByName ? `by ${view.cancellation.cancelledByName} ` : ""}
              on <time dateTime={view.cancellation.cancelledAt}>{formatDateTime(view.cancellation.cancelledAt)}</time>
            </p>
            <p className="mt-1 whitespace-pre-line">Reason: {view.cancellation.reason}</p>
          </Alert>
        ) : null}

        {view ? (
          <dl aria-label="Recipient counts" className="grid grid-cols-2 gap-3 sm:grid-cols-5">
            {countLabels.map(([key, label]) => (
              <div key={key} className="rounded-md bg-slate-50 px-3 py-2 ring-1 ring-slate-200 ring-inset">
                <dt className="text-xs text-slate-500">{label}</dt>
                <dd className="text-lg font-semibold text-slate-900 tabular-nums">{view.counts[key].toLocaleString()}</dd>
              </div>
            ))}
          </dl>
        ) : null}

        <div className="grid gap-3 sm:grid-cols-3">
          <SelectField label="Show" value={status} onChange={(e) => setStatus(e.target.value as StatusFilter)}>
            <option value="all">Everyone</option>
            <option value="pending">Pending</option>
            <option value="acknowledged">Acknowledged</option>
          </SelectField>
          <SelectField label="Sort by" value={sort} onChange={(e) => setSort(e.target.value as Sort)}>
            <option value="name">Name</option>
            <option value="email">Email</option>
            <option value="acknowledgedAt">Acknowledged at</option>
          </SelectField>
          <SelectField label="Order" value={order} onChange={(e) => setOrder(e.target.value as Order)}>
            <option value="asc">Ascending</option>
            <option value="desc">Descending</option>
          </SelectField>
        </div>

        <QueryState query={query} loading="Loading recipients" error="Could not load the recipients">
          {() => (
            <DataTable
              label="Recipients"
              columns={
                <>
                  <Th>Recipient</Th>
                  <Th className="hidden sm:table-cell">Via</Th>
                  <Th className="hidden sm:table-cell">Emailed</Th>
                  <Th className="hidden sm:table-cell">Seen</Th>
                  <Th>Acknowledged</Th>
                </>
              }
            >
              {items.length === 0 ? (
                <EmptyRow columns={5}>{status === "all" ? "Nobody received it." : `Nobody is ${status}.`}</EmptyRow>
              ) : (
                items.map((recipient) => (
                  <tr key={recipient.userId}>
                    <td className={`${td} max-w-56`}>
                      <span className="block truncate font-medium text-slate-900">{recipient.name}</span>
                      <span className="block truncate text-xs text-slate-500" title={recipient.email}>
                        {recipient.email}
                      </span>
                    </td>
                    <td className={`${td} hidden text-slate-500 sm:table-cell`}>{viaLabels[recipient.via]}</td>
                    <td className={`${td} hidden whitespace-nowrap sm:table-cell`}>
                      {recipient.emailState === "failed" ? (
                        <span className="text-xs font-medium text-red-700" title={recipient.emailError ?? undefined}>
                          Email failed
                        </span>
                      ) : (
                        <When iso={recipient.emailedAt} />
                      )}
                    </td>
                    <td className={`${td} hidden whitespace-nowrap sm:table-cell`}>
                      <When iso={recipient.seenAt} />
                    </td>
                    <td className={`${td} whitespace-nowrap`}>
                      {recipient.acknowledgedAt ? <When iso={recipient.acknowledgedAt} /> : <Badge tone="amber">Pending</Badge>}
                    </td>
                  </tr>
                ))
              )}
            </DataTable>
          )}
        </QueryState>
        <LoadMoreButton query={query} />
        {query.isFetchNextPageError ? <Alert tone="error">Could not load more recipients: {summarizeError(query.error).message}</Alert> : null}
      </div>
    </Drawer>
  );
}
