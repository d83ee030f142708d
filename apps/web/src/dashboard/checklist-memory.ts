import { useCallback, useState } from "react";

/** Why the checklist stays away: the user hid it, or saw every step done. */
type Ending = "dismissed" | "finished";
const keyFor = (userId: string) => `meridian:first-night-checklist:${userId}`;

function read(key: string): Ending | null {
  try {
    const value = localStorage.getItem(key);
    return value === "dismissed" || value === "finished" ? value : null;
  } catch {
    return null;
  }
}

/**
 * Whether this user's first-night checklist is over, remembered in this browser (localStorage, per
 * user): how the dashboard looks is no fact anyone else acts on, so it needs no API, like the
 * dismissed announcement banners. Once over it stays away, even when a step is undone later.
 */
export function useChecklistEnding(userId: string | undefined) {
  const key = userId ? keyFor(userId) : null;
  const [ending, setEnding] = useState<{ key: string | null; value: Ending | null }>(() => ({ key, value: key ? read(key) : null }));
  // Another user signed in (or the user became known): read that user's entry.
  const current = ending.key === key ? ending.value : key ? read(key) : null;
  const end = useCallback(
    (value: Ending) => {
      if (!key) return;
      try {
        localStorage.setItem(key, value);
      } catch {
        // Storage refused (private mode): the checklist stays away until the page is reloaded.
      }
      setEnding({ key, value });
    },
    [key],
  );
  return { ended: current !== null, end };
}
