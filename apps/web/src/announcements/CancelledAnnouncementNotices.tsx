import { useState } from "react";
import { Ban, X } from "lucide-react";
import { Button } from "../components/Button";
import { formatDateTime } from "../lib/format";
import { useRealtimeEvent } from "../lib/realtime";
import { queryClient, trpc } from "../trpc";
import type { Announcement } from "./types";

interface CancelledNotice {
  id: string;
  title: string;
  reason: string | null;
  cancelledAt: string | null;
}

/** The announcement `id` as this screen shows it to its recipient (modal or banner), from the lists already read. */
function shownAnnouncement(id: string): Announcement | undefined {
  const lists = [trpc.announcements.pending, trpc.announcements.current].flatMap((view) =>
    queryClient.getQueriesData<{ items: Announcement[] }>({ queryKey: view.pathKey() }),
  );
  for (const [, data] of lists) {
    const found = data?.items.find((announcement) => announcement.id === id);
    if (found) return found;
  }
  return undefined;
}

/**
 * A cancelled announcement leaves the modal and the banners at once; in its place, on every page,
 * a notice says which one it was and why (the reason its sender had to give), until dismissed.
 * Only for what this screen was showing: the event reaches every recipient, also those who never saw it.
 */
export function CancelledAnnouncementNotices() {
  const [notices, setNotices] = useState<CancelledNotice[]>([]);
  useRealtimeEvent("announcement.cancelled", (event) => {
    // Read before the lists are fetched again without it (AnnouncementLiveUpdates refreshes them on the same event).
    const shown = shownAnnouncement(event.id);
    if (!shown) return;
    const notice = { id: event.id, title: shown.title, reason: event.reason ?? null, cancelledAt: event.cancelledAt ?? null };
    setNotices((current) => [...current.filter((other) => other.id !== event.id), notice]);
  });
  const dismiss = (id: string) => {
    setNotices((current) => current.filter((notice) => notice.id !== id));
    // The button goes with its notice: the keyboard goes on from the page.
    requestAnimationFrame(() => document.querySelector<HTMLElement>("#main")?.focus());
  };
  return (
    <div role="status" aria-label="Cancelled announcements">
      {notices.map((notice) => (
        <div key={notice.id} className="flex items-start gap-3 border-b border-slate-200 bg-slate-100 px-4 py-3 text-sm text-slate-800 sm:px-6">
          <Ban aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
          <p className="min-w-0 flex-1 break-words">
            <span className="font-semibold">{notice.title}</span> was cancelled
            {notice.cancelledAt ? (
              <>
                {" "}
                at <time dateTime={notice.cancelledAt}>{formatDateTime(notice.cancelledAt)}</time>
              </>
            ) : null}
            . {notice.reason ? <>Reason: {notice.reason}</> : null}
          </p>
          <Button variant="ghost" className="shrink-0" icon={<X aria-hidden="true" className="size-4" />} onClick={() => dismiss(notice.id)}>
            Dismiss<span className="sr-only"> the notice that {notice.title} was cancelled</span>
          </Button>
        </div>
      ))}
    </div>
  );
}
