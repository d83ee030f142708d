import { useQuery } from "@tanstack/react-query";
import { Megaphone } from "lucide-react";
import { trpc } from "../trpc";
import { plural } from "./labels";

/** How many announcements show now on each observatory the caller can see, by observatory id. */
export function useObservatoryAnnouncementCounts() {
  const counts = useQuery(trpc.announcements.observatoryCounts.queryOptions(undefined, { staleTime: 0 }));
  return new Map((counts.data?.items ?? []).map((item) => [item.observatoryId, item.activeAnnouncements]));
}

/** A megaphone on an observatory while it has announcements showing; its count on hover. */
export function ActiveAnnouncementsIcon({ count }: { count: number }) {
  if (count <= 0) return null;
  return (
    <span
      role="img"
      aria-label="Active announcements"
      title={plural(count, "active announcement")}
      className={
        "inline-flex shrink-0 items-center gap-1 rounded-full bg-amber-50 px-2 py-0.5 text-xs " + "font-medium text-amber-800 ring-1 ring-amber-200 ring-inset"
      }
    >
      <Megaphone aria-hidden="true" className="size-3.5" />
      <span aria-hidden="true">{count}</span>
    </span>
  );
}
