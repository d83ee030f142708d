import { Badge } from "../components/Badge";
import { useTimeDisplay } from "../lib/time-display";
import { formatClock, formatObservatoryTime, formatShortDateTime } from "../lib/format";
import { comingHours, zoneClockWithZone } from "../lib/zone-time";
import { queueBlockLabels, type Observation } from "../observations/labels";
import { reasonInWords, type WaitReason } from "../observations/reason-words";

/**
 * Every reason a queued observation waits, the first as a badge, each in words with when it ends. Its times are
 * the observatory's (`zone`, once its page has read it), as the Darkness card's beside it, with the zone's name.
 */
export function QueueReasons({ item, zone }: { item: { observation: Observation; reasons: WaitReason[] }; zone: string | undefined }) {
  useTimeDisplay();
  const { constraints, bypassDarkness } = item.observation;
  const near = comingHours();
  const when = (iso: string) => {
    const ms = Date.parse(iso);
    // The clock alone for the next hours, the date too beyond them.
    if (ms >= near.from && ms <= near.to) return zone ? zoneClockWithZone(iso, zone) : formatClock(iso);
    return zone ? formatObservatoryTime(iso, zone, { short: true }) : formatShortDateTime(iso);
  };
  const [first] = item.reasons;
  return (
    <span className="flex flex-col items-start gap-1">
      {first ? <Badge tone="amber">{queueBlockLabels[first.code] ?? first.code}</Badge> : null}
      <ul aria-label="Why it waits" className="flex flex-col gap-0.5 text-xs text-slate-600">
        {item.reasons.map((reason) => (
          <li key={`${reason.code} ${reason.limit ?? ""}`}>
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
