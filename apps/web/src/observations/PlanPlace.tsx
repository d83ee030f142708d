import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router-dom";
import { comingHours, zoneLabel, zoneMoment } from "../lib/zone-time";
import type { RouterOutputs } from "../organizations/types";
import { trpc } from "../trpc";
import type { Observation } from "./labels";
import { lowerFirst, reasonInWords, type WaitReason } from "./reason-words";

type Forecast = RouterOutputs["observations"]["forecast"];
type PlanReason = RouterOutputs["network"]["observationPlace"]["reasons"][number];

interface PlanPlaceProps {
  observation: Observation;
  forecast: Forecast;
  /** An observatory's name, undefined for one the reader cannot view. */
  observatoryName(id: string): string | undefined;
}

/** An observatory by name, linking to its page; one the reader cannot view is said so, with no link. */
function ObservatoryLink({ id, name }: { id: string; name: string | undefined }) {
  if (name === undefined) return <>an observatory you cannot view</>;
  return (
    <Link to={`/observatories/${id}`} className="font-medium text-indigo-700 underline-offset-2 hover:underline">
      {name}
    </Link>
  );
}

/** A reason of the network plan in the queue's words, its moment on that observatory's clock and named ("observatory time, UTC+11"). */
function reasonText(reason: PlanReason, observation: Observation): string {
  const zone = reason.timeZone;
  const { constraints } = observation;
  const words: string | undefined = reasonInWords(reason as WaitReason, {
    when: (iso) => zoneMoment(iso, zone, comingHours()),
    plan: true,
    twilight: observation.bypassDarkness ? undefined : constraints.twilight,
    limits: { minAltitude: constraints.minAltitude, maxAirmass: constraints.maxAirmass, moonDistance: constraints.moonDistance },
  });
  return `${lowerFirst(words ?? reason.code)}${reason.until ? ` (${zoneLabel(zone, reason.until)})` : ""}`;
}

/**
 * Why the network plan leaves a pending observation out, at each observatory the reader may view: this observation's place
 * in the plan in force (`network.observationPlace`, not the whole plan), in the forecast's words. Nothing while the plan says
 * nothing of it (not made yet, or none of its observatories is the reader's to view): the forecast's sentence stands alone then.
 */
function UnplannedReasons({ observation, observatoryName }: Omit<PlanPlaceProps, "forecast">) {
  const place = useQuery(trpc.network.observationPlace.queryOptions({ id: observation.id }, { staleTime: 0 }));
  const reasons = place.data?.reasons ?? [];
  if (reasons.length === 0) return null;
  return (
    <div className="pl-6">
      <p>Not in the network plan:</p>
      <ul aria-label="Why it is not in the network plan" className="list-disc pl-5">
        {reasons.map((reason) => (
          <li key={`${reason.observatoryId}-${reason.code}`}>
            <ObservatoryLink id={reason.observatoryId} name={observatoryName(reason.observatoryId)} />: {reasonText(reason, observation)}
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * Where a waiting observation is planned: while pending, the observatory the network plan runs it at (the forecast's
 * `observatoryId`, linking to it; its start and end are the forecast's sentence above, on that clock), or why the plan
 * leaves it out; and for one that may run at several, each of them.
 */
export function PlanPlace({ observation, forecast, observatoryName }: PlanPlaceProps) {
  const candidates = observation.candidateObservatoryIds;
  const pending = observation.status === "pending";
  return (
    <>
      {pending && forecast.observatoryId ? (
        <p className="pl-6">
          Planned at <ObservatoryLink id={forecast.observatoryId} name={observatoryName(forecast.observatoryId)} /> in the network plan.
        </p>
      ) : null}
      {pending && !forecast.observatoryId ? <UnplannedReasons observation={observation} observatoryName={observatoryName} /> : null}
      {candidates.length > 1 ? (
        <div className="pl-6">
          <p>{pending ? `May run at any of these ${candidates.length}:` : `Its ${candidates.length} candidate observatories:`}</p>
          <ul aria-label="Where it may run" className="list-disc pl-5">
            {candidates.map((id) => (
              <li key={id}>
                <ObservatoryLink id={id} name={observatoryName(id)} />
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </>
  );
}
