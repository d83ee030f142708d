import { useQuery } from "@tanstack/react-query";
import { trpc } from "../trpc";

/**
 * The caller's unacknowledged system announcements showing now: until each is acknowledged the
 * app is blocked. Read on every page load and kept current by the realtime events.
 */
export function useBlockingAnnouncements() {
  const pending = useQuery(trpc.announcements.pending.queryOptions(undefined, { staleTime: 0 }));
  return pending.data?.items.filter((announcement) => announcement.scope === "system") ?? [];
}
