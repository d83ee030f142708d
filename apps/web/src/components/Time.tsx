import { formatObservatoryTime } from "../lib/format";
import { useTimeDisplay, utcText } from "../lib/time-display";

/**
 * A moment of an observatory's (a window, a run, the queue, darkness): in the observatory's zone with
 * its name (`zoneName`), or in the browser's zone or UTC as the profile chooses, always named; the UTC time on hover.
 * Re-renders when the choice changes.
 */
export function Time({
  iso,
  zone,
  short = false,
  fallback = "—",
}: {
  iso: string | null | undefined;
  zone: string | undefined;
  short?: boolean;
  fallback?: string;
}) {
  const choice = useTimeDisplay();
  const date = iso ? new Date(iso) : null;
  if (!date || Number.isNaN(date.getTime())) return <>{fallback}</>;
  return (
    <time dateTime={date.toISOString()} title={utcText(date)}>
      {formatObservatoryTime(iso, zone, { short, choice })}
    </time>
  );
}
