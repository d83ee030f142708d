import { Link } from "react-router-dom";
import { formatShortDateTime } from "../lib/format";
import { reasonInWords, type WaitReason } from "../observations/reason-words";
import type { NetworkPlan } from "./network-plan";

interface UnscheduledProps {
  unscheduled: NetworkPlan["unscheduled"];
  observatoryName(id: string): string;
  /** An observation's name when known (the plan gives only its id). */
  observationName(id: string): string | undefined;
}

/** A plan's reason in words; a code this app does not know yet reads as itself rather than as nothing. */
function inWords(reason: NetworkPlan["unscheduled"][number]["reasons"][number]): string {
  const words: string | undefined = reasonInWords(reason as WaitReason, { when: (iso) => formatShortDateTime(iso), plan: true });
  return words ?? reason.code;
}

/** The observations the plan leaves out, and why, per observatory, in words. */
export function UnscheduledList({ unscheduled, observatoryName, observationName }: UnscheduledProps) {
  if (unscheduled.length === 0) return <p className="text-sm text-slate-600">Every pending observation has a place in the plan.</p>;
  return (
    <ul className="space-y-3" aria-label="Not in the plan">
      {unscheduled.map((item) => {
        const name = observationName(item.observationId) ?? `Observation ${item.observationId}`;
        return (
          <li key={item.observationId} aria-label={name} className="rounded-lg border border-slate-200 bg-white p-3">
            <Link to={`/observations/${item.observationId}`} className="font-medium text-blue-700 underline-offset-2 hover:underline">
              {name}
            </Link>
            <ul className="mt-1 space-y-1 text-sm text-slate-700">
              {item.reasons.map((reason) => (
                <li key={`${reason.observatoryId}-${reason.code}`}>
                  <span className="font-medium">{observatoryName(reason.observatoryId)}</span>: {inWords(reason)}
                </li>
              ))}
            </ul>
          </li>
        );
      })}
    </ul>
  );
}
