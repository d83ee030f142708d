import { useQuery } from "@tanstack/react-query";
import { Crosshair, Plus } from "lucide-react";
import { ActionLink } from "../components/ActionLink";
import { EmptyState } from "../components/EmptyState";
import { QueryState } from "../components/QueryState";
import { ObservationLines } from "../observations/ObservationLines";
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
            <ObservationLines items={data.items} empty={null} label="Latest observations of the project" />
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
