import { useRealtimeEvent, useRealtimeReconnect } from "../lib/realtime";
import { queryClient, trpc } from "../trpc";
import { refreshAnnouncements } from "./refresh";

/** What an acknowledgment changes for its senders: counts and statuses, not what anyone must read. */
function refreshSenderViews() {
  const views = [
    trpc.announcements.managed,
    trpc.announcements.stats,
    trpc.announcements.listSystem,
    trpc.announcements.history,
    trpc.announcements.listActive,
    trpc.announcements.recipients,
  ];
  return Promise.all(views.map((view) => queryClient.invalidateQueries(view.pathFilter())));
}

/** First views and delivered emails change only the recipients view's seen and emailed columns. */
function refreshRecipientViews() {
  return queryClient.invalidateQueries(trpc.announcements.recipients.pathFilter());
}

/**
 * Keeps every announcement view current from the server's pushes: a new, cancelled or expired
 * announcement (the blocking modal and banners show or drop it at once), the caller's own
 * acknowledgment in another tab, and senders' counts. After a reconnection, whatever was missed.
 */
export function AnnouncementLiveUpdates() {
  useRealtimeEvent("announcement.created", () => void refreshAnnouncements());
  useRealtimeEvent("announcement.cancelled", () => void refreshAnnouncements());
  useRealtimeEvent("announcement.expired", () => void refreshAnnouncements());
  useRealtimeEvent("announcement.acknowledged", () => void refreshAnnouncements());
  useRealtimeEvent("announcement.counts", () => void refreshSenderViews());
  useRealtimeEvent("announcement.delivery", () => void refreshRecipientViews());
  useRealtimeReconnect(() => void refreshAnnouncements());
  return null;
}
