import { useEffect, useRef } from "react";
import { useQuery } from "@tanstack/react-query";
import type { ObservationStatus } from "@meridian/rules";
import { QueryState } from "../components/QueryState";
import { Time } from "../components/Time";
import { trpc } from "../trpc";
import { observationStatusInfo } from "./labels";
import { StatusBadge } from "./StatusBadge";

const actorLabel = (actor: { kind: string; id: string }) =>
  actor.kind === "observatory" ? "the observatory" : actor.kind === "system" ? (actor.id === "dispatch" ? "dispatch" : "Meridian") : "a user";

/**
 * Every status move, oldest first, with who made it and why. `status` is the observation's status as
 * the page shows it: every move is recorded, so the last entry always ends there, and a timeline that
 * ends elsewhere was read before the move (its event crossed the read) and is read again, once per move.
 */
export function ObservationTimeline({
  observationId,
  status,
  statusChangedAt,
  timeZone,
}: {
  observationId: string;
  status: ObservationStatus;
  statusChangedAt: string;
  /** The observatory's zone: the moves happened there. */
  timeZone?: string;
}) {
  const history = useQuery(trpc.observations.history.queryOptions({ id: observationId }, { staleTime: 0 }));
  const lastEntry = history.data?.items.at(-1);
  const behind = lastEntry !== undefined && lastEntry.to !== status;
  const reloadedFor = useRef<string | null>(null);
  const { isFetching, refetch } = history;
  useEffect(() => {
    if (!behind || isFetching || reloadedFor.current === statusChangedAt) return;
    reloadedFor.current = statusChangedAt;
    void refetch();
  }, [behind, isFetching, refetch, statusChangedAt]);
  return (
    <QueryState query={history} loading="Loading the timeline" error="Could not load the timeline">
      {(data) => (
        <ol aria-label="Status timeline" className="relative ml-2 border-l border-slate-200">
          {data.items.map((entry, index) => (
            <li key={index} className="mb-4 ml-4">
              <span aria-hidden="true" className="absolute -left-1.5 mt-1.5 size-3 rounded-full border border-white bg-indigo-400" />
              <div className="flex flex-wrap items-center gap-2">
                <StatusBadge status={entry.to} />
                <span className="text-xs text-slate-500">
                  <Time iso={entry.at} zone={timeZone} />
                </span>
              </div>
              <p className="mt-1 text-sm text-slate-600">
                {entry.from ? `From ${observationStatusInfo[entry.from].label.toLowerCase()}, by ${actorLabel(entry.actor)}` : "Submitted"}
                {entry.reason ? `: ${entry.reason}` : ""}
              </p>
            </li>
          ))}
        </ol>
      )}
    </QueryState>
  );
}
