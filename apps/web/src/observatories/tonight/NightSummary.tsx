import { zoneAbbreviation, zoneClock } from "../../lib/zone-time";
import type { NightPlan, PlanNight } from "./night-plan";

function moonText(moon: NightPlan["moon"], zone: string): string {
  const lit = moon.illumination === null ? "" : `${Math.round(moon.illumination * 100)}% lit`;
  const events = [
    moon.rise ? { at: moon.rise, text: `rises ${zoneClock(moon.rise, zone)}` } : null,
    moon.set ? { at: moon.set, text: `sets ${zoneClock(moon.set, zone)}` } : null,
  ]
    .filter((event) => event !== null)
    .sort((a, b) => a.at.localeCompare(b.at))
    .map((event) => event.text);
  return events.length > 0 ? `${lit}, ${events.join(", ")}` : `${lit}; it neither rises nor sets this night`;
}

function Item({ label, children }: { label: string; children: string }) {
  return (
    <div>
      <dt className="text-xs font-medium text-slate-500">{label}</dt>
      <dd className="text-sm text-slate-900">{children}</dd>
    </div>
  );
}

/** The night in words: sunset, darkness, sunrise and the Moon, on the observatory's clock. */
export function NightSummary({ plan, night }: { plan: NightPlan; night: PlanNight }) {
  const zone = plan.timeZone;
  const clock = (at: string) => zoneClock(at, zone);
  return (
    <dl className="grid grid-cols-2 gap-3 sm:grid-cols-5">
      <Item label="Sunset">{clock(night.sunset)}</Item>
      <Item label="Dark (astronomical)">{night.darkStart && night.darkEnd ? `${clock(night.darkStart)} to ${clock(night.darkEnd)}` : "Not this night"}</Item>
      <Item label="Sunrise">{clock(night.sunrise)}</Item>
      <Item label="Moon">{moonText(plan.moon, zone)}</Item>
      <Item label="Times">{`Observatory time (${zoneAbbreviation(zone, night.sunset)})`}</Item>
    </dl>
  );
}
