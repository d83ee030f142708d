import { Link } from "react-router-dom";
import { formatShortDateTime } from "../lib/format";
import { CLOCK, displayZone } from "../lib/time-display";
import { useNow } from "../lib/useNow";
import { horizonScale, hourTicks, stableColour, type NetworkPlan, type NetworkSlot } from "./network-plan";

const TRACK_HEIGHT = 32;
const BLOCK_CLASSES =
  "absolute top-1 bottom-1 overflow-hidden rounded px-1 text-xs leading-6 whitespace-nowrap text-white " +
  "focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-slate-900";

interface TimelineProps {
  plan: NetworkPlan;
  /** An observatory's name by id (its id while not known). */
  observatoryName(id: string): string;
  /** What a slot is coloured by: its observation's project when known, else the observation. */
  colourKey(slot: NetworkSlot): string;
}

/** "Dome A: Pleiades, from 28 Nov 21:05 UTC+1 to 28 Nov 23:05 UTC+1": what a block says to a screen reader and on hover. */
const blockName = (observatory: string, slot: NetworkSlot) =>
  `${observatory}: ${slot.name}, from ${formatShortDateTime(slot.start)} to ${formatShortDateTime(slot.end)}`;

/**
 * The plan over its horizon, one row per observatory: its dark periods as bands, its planned blocks as
 * links to their observations, and the present moment. Drawn at a fixed width per hour inside its own
 * scrolling box, so the page never scrolls sideways on a phone.
 */
export function NetworkTimeline({ plan, observatoryName, colourKey }: TimelineProps) {
  const scale = horizonScale(plan);
  const now = useNow(30_000);
  const clock = new Intl.DateTimeFormat(undefined, { ...CLOCK, timeZone: displayZone(undefined) });
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white" data-scrolling-timeline="">
      <div className="relative" style={{ width: scale.width + 16 }}>
        <div aria-hidden="true" className="relative h-6 border-b border-slate-200 text-[11px] text-slate-500">
          {hourTicks(plan).map((at) => (
            <span key={at} className="absolute top-1 -translate-x-1/2 whitespace-nowrap" style={{ left: scale.x(at) + 8 }}>
              {clock.format(new Date(at))}
            </span>
          ))}
        </div>
        {plan.observatories.map((observatory) => {
          const name = observatoryName(observatory.observatoryId);
          const slots = plan.slots.filter((slot) => slot.observatoryId === observatory.observatoryId);
          return (
            <section key={observatory.observatoryId} aria-label={`Plan at ${name}`} className="border-b border-slate-100 py-1">
              <h3 className="sticky left-0 inline-block px-2 text-sm font-medium text-slate-800">{name}</h3>
              <div className="relative mx-2" style={{ height: TRACK_HEIGHT }}>
                {observatory.nights.map((night) => (
                  <div
                    key={night.darkStart}
                    role="img"
                    aria-label={`Dark from ${formatShortDateTime(night.darkStart)} to ${formatShortDateTime(night.darkEnd)}`}
                    className="absolute inset-y-0 rounded bg-slate-800/15"
                    style={{ left: scale.x(night.darkStart), width: scale.x(night.darkEnd) - scale.x(night.darkStart) }}
                  />
                ))}
                <ul className="contents">
                  {slots.map((slot) => (
                    <li key={slot.observationId} className="contents">
                      <Link
                        to={`/observations/${slot.observationId}`}
                        aria-label={blockName(name, slot)}
                        title={blockName(name, slot)}
                        className={BLOCK_CLASSES}
                        style={{
                          left: scale.x(slot.start),
                          width: Math.max(4, scale.x(slot.end) - scale.x(slot.start)),
                          backgroundColor: stableColour(colourKey(slot)),
                        }}
                      >
                        {slot.name}
                      </Link>
                    </li>
                  ))}
                </ul>
              </div>
            </section>
          );
        })}
        {now >= scale.start && now <= scale.end ? (
          <div
            aria-hidden="true"
            data-testid="now-line"
            className="pointer-events-none absolute top-0 bottom-0 w-0.5 bg-red-500"
            style={{ left: scale.x(now) + 8 }}
          />
        ) : null}
      </div>
    </div>
  );
}
