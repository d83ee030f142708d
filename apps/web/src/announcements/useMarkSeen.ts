import { useEffect } from "react";
import { useMe } from "../auth/useMe";
import { trpcClient } from "../trpc";

/** Reported this page load, per user: the server keeps only the first time anyway. */
const reported = new Set<string>();
const MAX_IDS_PER_CALL = 100;

/**
 * Tells the server these announcements are on screen now, so senders see who was shown them
 * (`seenAt`). Each is reported once; a failed report is tried again the next time it shows.
 */
export function useMarkSeen(ids: string[]) {
  const me = useMe();
  const userId = me.data?.id;
  const key = ids.join(",");
  useEffect(() => {
    if (!userId || !key) return;
    const fresh = key.split(",").filter((id) => !reported.has(`${userId}:${id}`));
    for (let start = 0; start < fresh.length; start += MAX_IDS_PER_CALL) {
      const batch = fresh.slice(start, start + MAX_IDS_PER_CALL);
      for (const id of batch) reported.add(`${userId}:${id}`);
      trpcClient.announcements.markSeen.mutate({ ids: batch }).catch(() => {
        for (const id of batch) reported.delete(`${userId}:${id}`);
      });
    }
  }, [key, userId]);
}
