import { useState } from "react";

/** The most frames one ZIP download holds (the archive route's bound). */
export const MAX_ARCHIVE_FRAMES = 200;

export interface FrameSelection {
  /** The selected ids among those shown, in the order shown. */
  ids: readonly string[];
  has(id: string): boolean;
  /** True once the bound is reached: more cannot be chosen until some are let go. */
  full: boolean;
  toggle(id: string, on: boolean): void;
  /** Every frame shown, up to the bound (the first ones shown), or none. */
  setAll(on: boolean): void;
  /** True when select-all stopped at the bound with frames left out. */
  capped: boolean;
}

/** Which of the frames shown are chosen for a download: at most `MAX_ARCHIVE_FRAMES`; a new search keeps only those it shows again. */
export function useFrameSelection(shownIds: readonly string[]): FrameSelection {
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const [cappedAll, setCappedAll] = useState(false);
  const ids = shownIds.filter((id) => chosen.has(id));
  const full = ids.length >= MAX_ARCHIVE_FRAMES;
  return {
    ids,
    has: (id) => chosen.has(id),
    full,
    toggle: (id, on) => {
      setCappedAll(false);
      setChosen((current) => {
        const kept = shownIds.filter((shown) => current.has(shown));
        if (on && kept.length >= MAX_ARCHIVE_FRAMES) return current;
        const next = new Set(kept);
        if (on) next.add(id);
        else next.delete(id);
        return next;
      });
    },
    setAll: (on) => {
      setCappedAll(on && shownIds.length > MAX_ARCHIVE_FRAMES);
      setChosen(new Set(on ? shownIds.slice(0, MAX_ARCHIVE_FRAMES) : []));
    },
    capped: cappedAll && full,
  };
}
