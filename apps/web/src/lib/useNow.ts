import { useEffect, useState } from "react";

/** The time, read again every `everyMs`: for markers that move with the clock ("now" on a timeline). */
export function useNow(everyMs = 60_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
