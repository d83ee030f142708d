import { Link } from "react-router-dom";
import { zoneMoment } from "../../lib/zone-time";
import { reasonInWords } from "../../observations/reason-words";
import type { NightPlan, PlanNight } from "./night-plan";

/** Does the curve stay below its minimum altitude all through the night's darkness (or the whole night, where it has none)? */
function belowAllNight(curve: NightPlan["altitude"][number] | undefined, night: PlanNight | null): boolean {
  if (!curve) return false;
  const from = Date.parse(night?.darkStart ?? night?.sunset ?? "");
  const to = Date.parse(night?.darkEnd ?? night?.sunrise ?? "");
  const inside = curve.points.filter((point) => !(Date.parse(point.at) < from) && !(Date.parse(point.at) > to));
  return inside.length > 0 && inside.every((point) => point.altitude < curve.minAltitude);
}

/** What the night leaves out, each with its reason in words and when that reason ends. */
export function UnscheduledList({ plan }: { plan: NightPlan }) {
  const zone = plan.timeZone;
  const night = plan.night;
  const near = night ? { from: Date.parse(night.sunset), to: Date.parse(night.sunrise) } : { from: 0, to: -1 };
  if (plan.unscheduled.length === 0) return <p className="text-sm text-slate-500">Every pending observation has its place in this night.</p>;
  return (
    <ul aria-label="Not planned this night" className="flex flex-col divide-y divide-slate-100">
      {plan.unscheduled.map((item) => {
        const curve = plan.altitude.find((entry) => entry.observationId === item.observationId);
        return (
          <li key={item.observationId} className="flex flex-col gap-0.5 py-2 sm:flex-row sm:items-baseline sm:gap-3">
            <span className="flex min-w-0 items-baseline gap-2">
              <Link to={`/observations/${item.observationId}`} className="truncate font-medium text-slate-900 hover:text-indigo-600">
                {item.name}
              </Link>
              <span className="shrink-0 text-xs text-slate-500">priority {item.priority}</span>
            </span>
            <span className="text-sm text-slate-600">
              {reasonInWords(item.blockedBy, {
                when: (iso) => zoneMoment(iso, zone, near),
                plan: true,
                limits: curve ? { minAltitude: curve.minAltitude } : undefined,
                belowMinimum: belowAllNight(curve, night),
              })}
            </span>
          </li>
        );
      })}
    </ul>
  );
}
