import { useEffect, useState } from "react";
import { useMe } from "../auth/useMe";
import { trpcClient } from "../trpc";

/** Reported this page load, per user: the server keeps only the first time anyway. */
const reported = new Set<string>();
const MAX_IDS_PER_CALL = 100;
/** A report lost on the way (a connection cut, a server restarting) is sent again after 1, 2 and 4 s while it shows. */
const RETRIES = 3;
const FIRST_RETRY_MS = 1_000;

/**
 * Tells the server these announcements are on screen now, so senders see who was shown them
 * (`seenAt`). Each is reported once; a failed report is sent again a few times while it shows,
 * and the next time it shows (reporting twice is harmless: the server keeps the first).
 */
export function useMarkSeen(ids: string[]) {
  const me = useMe();
  const userId = me.data?.id;
  const key = ids.join(",");
  const [retry, setRetry] = useState(0);
  useEffect(() => {
    if (!userId || !key) return;
    let showing = true;
    let again: ReturnType<typeof setTimeout> | undefined;
    const fresh = key.split(",").filter((id) => !reported.has(`${userId}:${id}`));
    for (let start = 0; start < fresh.length; start += MAX_IDS_PER_CALL) {
      const batch = fresh.slice(start, start + MAX_IDS_PER_CALL);
      for (const id of batch) reported.add(`${userId}:${id}`);
      trpcClient.announcements.markSeen.mutate({ ids: batch }).catch(() => {
        for (const id of batch) reported.delete(`${userId}:${id}`);
        if (showing && retry < RETRIES && again === undefined) again = setTimeout(() => setRetry(retry + 1), FIRST_RETRY_MS * 2 ** retry);
      });
    }
    return () => {
      showing = false;
      clearTimeout(again);
    };
  }, [key, userId, retry]);
}
