import { useEffect, useRef } from "react";
import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router-dom";
import type { ObservationStatus } from "@meridian/rules";
import { Button } from "../components/Button";
import { QueryState } from "../components/QueryState";
import { Time } from "../components/Time";
import { pageInput, useCursorPages } from "../lib/useCursorPages";
import type { RouterOutputs } from "../organizations/types";
import { trpc, trpcClient } from "../trpc";
import { observationStatusInfo } from "./labels";
import { StatusBadge } from "./StatusBadge";

/** Moves read at a time: an ordinary observation's whole history, the latest of a long-lived monitoring one's. */
const PAGE_SIZE = 50;

type Entry = RouterOutputs["observations"]["history"]["items"][number];

const inlineLink = "font-medium text-indigo-600 underline underline-offset-2 hover:no-underline";

/** A person by name when the reader may see the project's or observatory's members (the server names them then); else no more than "someone". */
const actorLabel = (actor: Entry["actor"]) =>
  actor.kind === "observatory" ? "the observatory" : actor.kind === "system" ? (actor.id === "dispatch" ? "dispatch" : "Meridian") : (actor.name ?? "someone");

/** The observation a clone was made from, by its name once read, as a link. */
function CloneSource({ id }: { id: string }) {
  const source = useQuery({ ...trpc.observations.get.queryOptions({ id }), retry: false });
  return (
    <Link to={`/observations/${id}`} className={inlineLink}>
      {source.data?.name ?? "the observation it was cloned from"}
    </Link>
  );
}

function EntryText({ entry }: { entry: Entry }) {
  if (entry.from === null && entry.clonedFromId)
    return (
      <>
        Submitted by {actorLabel(entry.actor)}, cloned from <CloneSource id={entry.clonedFromId} />
      </>
    );
  const what = entry.from ? `From ${observationStatusInfo[entry.from].label.toLowerCase()}, by` : "Submitted by";
  return <>{`${what} ${actorLabel(entry.actor)}${entry.reason ? `: ${entry.reason}` : ""}`}</>;
}

/**
 * Every status move, oldest at the top, with who made it and why. The history is read newest first, a page at a time, so
 * a long-lived observation (a monitoring cadence moves every night for months) opens on its latest moves, and "Show older
 * moves" reaches back page by page to the first. `status` is the observation's status as the page shows it: every move is
 * recorded, so the newest entry always ends there, and a timeline that ends elsewhere was read before the move (its event
 * crossed the read) and is read again, once per move.
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
  const input = { id: observationId, order: "desc" as const, limit: PAGE_SIZE };
  const { query: history, items } = useCursorPages(trpc.observations.history.infiniteQueryKey(input), (cursor, signal) =>
    trpcClient.observations.history.query(pageInput(input, cursor), { signal }),
  );
  const newestEntry = items[0];
  const behind = newestEntry !== undefined && newestEntry.to !== status;
  const reloadedFor = useRef<string | null>(null);
  const { isFetching, refetch } = history;
  useEffect(() => {
    if (!behind || isFetching || reloadedFor.current === statusChangedAt) return;
    reloadedFor.current = statusChangedAt;
    void refetch();
  }, [behind, isFetching, refetch, statusChangedAt]);
  const oldestFirst = [...items].reverse();
  return (
    <QueryState query={history} loading="Loading the timeline" error="Could not load the timeline">
      {() => (
        <>
          {history.hasNextPage ? (
            <div className="mb-4 flex flex-wrap items-center justify-between gap-2">
              <p className="text-xs text-slate-500">The latest {items.length} moves</p>
              <Button variant="secondary" busy={history.isFetchingNextPage} onClick={() => void history.fetchNextPage()}>
                Show older moves
              </Button>
            </div>
          ) : null}
          <ol aria-label="Status timeline" className="relative ml-2 border-l border-slate-200">
            {oldestFirst.map((entry) => (
              <li key={entry.id} className="mb-4 ml-4">
                <span aria-hidden="true" className="absolute -left-1.5 mt-1.5 size-3 rounded-full border border-white bg-indigo-400" />
                <div className="flex flex-wrap items-center gap-2">
                  <StatusBadge status={entry.to} />
                  <span className="text-xs text-slate-500">
                    <Time iso={entry.at} zone={timeZone} />
                  </span>
                </div>
                <p className="mt-1 text-sm text-slate-600">
                  <EntryText entry={entry} />
                </p>
              </li>
            ))}
          </ol>
        </>
      )}
    </QueryState>
  );
}
