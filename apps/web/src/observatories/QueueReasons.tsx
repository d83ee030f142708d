import { Badge } from "../components/Badge";
import { useTimeDisplay } from "../lib/time-display";
import { formatClock, formatShortDateTime } from "../lib/format";
import { comingHours } from "../lib/zone-time";
import { queueBlockLabels, type Observation } from "../observations/labels";
import { reasonInWords, type WaitReason } from "../observations/reason-words";

/** Every reason a queued observation waits, the first as a badge, each in words with when it ends. */
export function QueueReasons({ item }: { item: { observation: Observation; reasons: WaitReason[] } }) {
  useTimeDisplay();
  const { constraints, bypassDarkness } = item.observation;
  const near = comingHours();
  const when = (iso: string) => {
    const ms = Date.parse(iso);
    // The clock alone for the next hours; the queue's times follow the browser's zone, as the rest of the page.
    return ms >= near.from && ms <= near.to ? formatClock(iso) : formatShortDateTime(iso);
  };
  const [first] = item.reasons;
  return (
    <span className="flex flex-col items-start gap-1">
      {first ? <Badge tone="amber">{queueBlockLabels[first.code] ?? first.code}</Badge> : null}
      <ul aria-label="Why it waits" className="flex flex-col gap-0.5 text-xs text-slate-600">
        {item.reasons.map((reason) => (
          <li key={reason.code}>
            {reasonInWords(reason, {
              when,
              twilight: bypassDarkness ? undefined : constraints.twilight,
              limits: { minAltitude: constraints.minAltitude, maxAirmass: constraints.maxAirmass, moonDistance: constraints.moonDistance },
            })}
          </li>
        ))}
      </ul>
    </span>
  );
}
