import { useQuery } from "@tanstack/react-query";
import { Crosshair, Plus } from "lucide-react";
import { Link, useSearchParams } from "react-router-dom";
import { observationStatuses, type ObservationStatus } from "@meridian/rules";
import { EmptyState } from "../components/EmptyState";
import { LoadMoreButton } from "../components/LoadMoreButton";
import { PageHeader } from "../components/PageHeader";
import { QueryState } from "../components/QueryState";
import { SelectField } from "../components/SelectField";
import { useDocumentTitle } from "../lib/document-title";
import { useCursorPages } from "../lib/useCursorPages";
import { observationStatusInfo } from "../observations/labels";
import { ObservationTable } from "../observations/ObservationTable";
import { trpc, trpcClient } from "../trpc";

const PAGE_SIZE = 50;

export function ObservationsPage() {
  useDocumentTitle("Observations");
  const [params, setParams] = useSearchParams();
  const filter = {
    ...(params.get("projectId") ? { projectId: params.get("projectId")! } : {}),
    ...(params.get("observatoryId") ? { observatoryId: params.get("observatoryId")! } : {}),
    ...(params.get("status") ? { status: params.get("status") as ObservationStatus } : {}),
  };
  const input = { limit: PAGE_SIZE, ...filter };
  const { query, items } = useCursorPages(trpc.observations.list.infiniteQueryKey(input), (cursor) =>
    trpcClient.observations.list.query(cursor ? { ...input, cursor } : input),
  );
  const projects = useQuery(trpc.projects.list.queryOptions(undefined));
  const observatories = useQuery(trpc.observatories.list.queryOptions({ limit: 200 }));
  const observatoryName = (id: string) => observatories.data?.items.find((observatory) => observatory.id === id)?.name;
  const observatoryZone = (id: string) => observatories.data?.items.find((observatory) => observatory.id === id)?.timeZone;
  const setFilter = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next, { replace: true });
  };

  return (
    <>
      <PageHeader
        title="Observations"
        description="What you submitted, what your projects planned and what your observatories run, updated live."
        actions={
          <Link
            to="/observations/new"
            className={
              "inline-flex items-center gap-2 rounded-md bg-indigo-600 px-3 py-2 text-sm font-semibold text-white shadow-sm " +
              "hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
            }
          >
            <Plus aria-hidden="true" className="size-4" />
            New observation
          </Link>
        }
      />
      <div className="mb-4 grid gap-3 sm:grid-cols-3">
        <SelectField label="Project" value={filter.projectId ?? ""} onChange={(event) => setFilter("projectId", event.target.value)}>
          <option value="">All projects</option>
          {projects.data?.items.map((project) => (
            <option key={project.id} value={project.id}>
              {project.name}
            </option>
          ))}
        </SelectField>
        <SelectField label="Observatory" value={filter.observatoryId ?? ""} onChange={(event) => setFilter("observatoryId", event.target.value)}>
          <option value="">All observatories</option>
          {observatories.data?.items.map((observatory) => (
            <option key={observatory.id} value={observatory.id}>
              {observatory.name}
            </option>
          ))}
        </SelectField>
        <SelectField label="Status" value={filter.status ?? ""} onChange={(event) => setFilter("status", event.target.value)}>
          <option value="">Any status</option>
          {observationStatuses.map((status) => (
            <option key={status} value={status}>
              {observationStatusInfo[status].label}
            </option>
          ))}
        </SelectField>
      </div>
      <QueryState
        query={query}
        loading="Loading observations"
        error="Could not load observations"
        isEmpty={() => items.length === 0}
        empty={
          <EmptyState icon={Crosshair} title={Object.keys(filter).length > 0 ? "No observations match" : "No observations yet"}>
            Submit an observation to a project and an observatory you may observe with.
          </EmptyState>
        }
      >
        {() => (
          <>
            <ObservationTable items={items} observatoryName={observatoryName} observatoryZone={observatoryZone} />
            <LoadMoreButton query={query} className="mt-4" />
          </>
        )}
      </QueryState>
    </>
  );
}
