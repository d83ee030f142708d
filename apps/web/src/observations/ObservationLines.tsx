import type { ReactNode } from "react";
import { Link } from "react-router-dom";
import { Time } from "../components/Time";
import { useObservatoryTimeZone } from "../observatories/useObservatoryTimeZone";
import { homeObservatoryId, type Observation } from "./labels";
import { StatusBadge } from "./StatusBadge";

/** When its status changed, in its observatory's zone as every time of an observation. */
function StatusChangedAt({ observation }: { observation: Observation }) {
  return <Time iso={observation.statusChangedAt} zone={useObservatoryTimeZone(homeObservatoryId(observation))} short />;
}

/** A short list of observations (name, when its status changed, status), or `empty` when there are none. */
export function ObservationLines({ items, empty, label }: { items: Observation[]; empty: ReactNode; label?: string }) {
  if (items.length === 0) return <p className="text-sm text-slate-500">{empty}</p>;
  return (
    <ul aria-label={label} className="flex flex-col gap-2">
      {items.map((observation) => (
        <li key={observation.id} className="flex items-center justify-between gap-3">
          <Link to={`/observations/${observation.id}`} className="truncate text-sm font-medium text-slate-900 hover:text-indigo-600">
            {observation.name}
          </Link>
          <span className="flex shrink-0 items-center gap-2">
            <span className="hidden text-xs text-slate-500 sm:inline">
              <StatusChangedAt observation={observation} />
            </span>
            <StatusBadge status={observation.status} />
          </span>
        </li>
      ))}
    </ul>
  );
}
