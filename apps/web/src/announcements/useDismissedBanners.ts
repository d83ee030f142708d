import { useCallback, useEffect, useState } from "react";

/** At most this many dismissals are remembered; ids no longer current are dropped first. */
const LIMIT = 200;
const keyFor = (userId: string) => `meridian:dismissed-announcements:${userId}`;

function read(key: string): string[] {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(key) ?? "[]");
    return Array.isArray(value) ? value.filter((id): id is string => typeof id === "string").slice(-LIMIT) : [];
  } catch {
    return [];
  }
}

function write(key: string, ids: string[]) {
  try {
    localStorage.setItem(key, JSON.stringify(ids.slice(-LIMIT)));
  } catch {
    // Storage full or refused (private mode): the dismissal lasts until the page is reloaded.
  }
}

/**
 * The acknowledged announcements this user put away from the dashboard. Kept in this browser
 * (localStorage, per user): a dismissal is how one screen looks, not a fact others act on (the
 * acknowledgment the sender counts is already recorded on the server), so it needs no API. The
 * list is pruned to the announcements still showing, so it stays small.
 */
export function useDismissedBanners(userId: string | undefined, showing: readonly string[] | undefined) {
  const key = userId ? keyFor(userId) : null;
  const [dismissed, setDismissed] = useState<string[]>(() => (key ? read(key) : []));
  // Another user signed in on this tab: their list, read as the change renders.
  const [readFor, setReadFor] = useState(key);
  if (key !== readFor) {
    setReadFor(key);
    if (key) setDismissed(read(key));
  }
  useEffect(() => {
    if (!key) return;
    // Another tab dismissed one: hide it here too.
    const onStorage = (event: StorageEvent) => {
      if (event.key === key) setDismissed(read(key));
    };
    window.addEventListener("storage", onStorage);
    return () => window.removeEventListener("storage", onStorage);
  }, [key]);
  const current = showing?.join(" ");
  useEffect(() => {
    if (!key || current === undefined) return;
    const still = new Set(current.split(" "));
    const kept = read(key).filter((id) => still.has(id));
    if (kept.length !== read(key).length) write(key, kept);
  }, [key, current]);
  const dismiss = useCallback(
    (id: string) => {
      if (!key) return;
      const next = [...read(key).filter((other) => other !== id), id];
      write(key, next);
      setDismissed(next);
    },
    [key],
  );
  return { isDismissed: (id: string) => dismissed.includes(id), dismiss };
}
