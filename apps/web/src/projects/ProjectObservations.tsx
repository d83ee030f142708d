import { useQuery } from "@tanstack/react-query";
import { Crosshair, Plus } from "lucide-react";
import { Link } from "react-router-dom";
import { ActionLink } from "../components/ActionLink";
import { EmptyState } from "../components/EmptyState";
import { QueryState } from "../components/QueryState";
import { formatShortDateTime } from "../lib/format";
import { StatusBadge } from "../observations/StatusBadge";
import { trpc } from "../trpc";
import { canManageProject, projectStatusInfo, type Project } from "./labels";

const SHOWN = 5;

/** The project's latest observations, a way to all of them, and what to do when there are none. */
export function ProjectObservations({ project }: { project: Project }) {
  const list = useQuery(trpc.observations.list.queryOptions({ projectId: project.id, limit: SHOWN }, { staleTime: 0 }));
  const active = project.status === "active";
  const submit = active ? (
    <ActionLink to="/observations/new" icon={<Plus aria-hidden="true" className="size-4" />}>
      Submit an observation
    </ActionLink>
  ) : undefined;
  return (
    <section aria-labelledby="project-observations-title" className="flex flex-col gap-3">
      <h2 id="project-observations-title" className="text-base font-semibold text-slate-900">
        Observations
      </h2>
      <QueryState
        query={list}
        loading="Loading observations"
        error="Could not load the observations"
        isEmpty={(data) => data.items.length === 0}
        empty={
          <EmptyState icon={Crosshair} title="No observations in this project yet" actions={submit}>
            {active
              ? "Its members submit observations to it, each to an observatory they may observe with."
              : `The project is ${projectStatusInfo[project.status].label.toLowerCase()}: observations go into active projects only. ` +
                (canManageProject(project) ? "Set its status to Active above to take new ones." : "Its owner and admins can make it active again.")}
          </EmptyState>
        }
      >
        {(data) => (
          <div className="rounded-lg bg-white px-4 py-4 shadow-sm ring-1 ring-slate-200 sm:px-6">
            <ul aria-label="Latest observations of the project" className="flex flex-col gap-2">
              {data.items.map((observation) => (
                <li key={observation.id} className="flex items-center justify-between gap-3">
                  <Link to={`/observations/${observation.id}`} className="truncate text-sm font-medium text-slate-900 hover:text-indigo-600">
                    {observation.name}
                  </Link>
                  <span className="flex shrink-0 items-center gap-2">
                    <span className="hidden text-xs text-slate-500 sm:inline">{formatShortDateTime(observation.statusChangedAt)}</span>
                    <StatusBadge status={observation.status} />
                  </span>
                </li>
              ))}
            </ul>
            <div className="mt-4 flex flex-wrap gap-2">
              <ActionLink variant="secondary" to={`/observations?projectId=${encodeURIComponent(project.id)}`}>
                All observations of {project.name}
              </ActionLink>
              {submit}
            </div>
          </div>
        )}
      </QueryState>
    </section>
  );
}
