import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router-dom";
import type { ObservationStatus } from "@meridian/rules";
import { Card } from "../components/Card";
import { OnlineBadge } from "../observatories/PermissionBadges";
import { trpc } from "../trpc";
import { ObservationLines } from "./ObservationLines";

const useByStatus = (status: ObservationStatus, limit = 5) => useQuery(trpc.observations.list.queryOptions({ status, limit }, { staleTime: 0 }));

const inlineLink = "font-medium text-indigo-600 underline underline-offset-2 hover:no-underline";

/** The dashboard's live view: the caller's observatories and whether they are online, what runs, what waits, what just ended. */
export function DashboardObservations() {
  // Connections change without an event to the user: the list is asked again every 15 s.
  const observatories = useQuery(trpc.observatories.list.queryOptions({ limit: 12 }, { staleTime: 0, refetchInterval: 15_000 }));
  const running = [useByStatus("in_progress"), useByStatus("assigned")];
  const queued = useByStatus("pending");
  const results = [useByStatus("completed"), useByStatus("failed"), useByStatus("aborted")];
  const recent = results
    .flatMap((query) => query.data?.items ?? [])
    .sort((a, b) => b.statusChangedAt.localeCompare(a.statusChangedAt))
    .slice(0, 5);
  return (
    <div className="mb-6 grid gap-4 lg:grid-cols-2">
      <Card title="Your observatories">
        {observatories.data && observatories.data.items.length > 0 ? (
          <ul className="flex flex-col gap-2" aria-label="Your observatories">
            {observatories.data.items.map((observatory) => (
              <li key={observatory.id} className="flex items-center justify-between gap-3">
                <Link to={`/observatories/${observatory.id}`} className="truncate text-sm font-medium text-slate-900 hover:text-indigo-600">
                  {observatory.name}
                </Link>
                <OnlineBadge online={observatory.connection.online} />
              </li>
            ))}
          </ul>
        ) : (
          <p className="text-sm text-slate-500">
            None yet.{" "}
            <Link to="/observatories" className={inlineLink}>
              Create one for your telescope
            </Link>
            , or ask an observatory's administrator to add you.
          </p>
        )}
      </Card>
      <Card title="Running now">
        <ObservationLines
          items={running.flatMap((query) => query.data?.items ?? [])}
          empty="Nothing is being observed. Dispatch sends a waiting observation once its observatory is online and the target can be observed."
        />
      </Card>
      <Card title="Queued">
        <ObservationLines
          items={queued.data?.items ?? []}
          empty={
            <>
              Nothing waits for dispatch.{" "}
              <Link to="/observations/new" className={inlineLink}>
                Submit an observation
              </Link>{" "}
              to fill the queue.
            </>
          }
        />
      </Card>
      <Card title="Recent results">
        <ObservationLines items={recent} empty="No results yet: finished observations show here, with their files on their own pages." />
      </Card>
    </div>
  );
}
