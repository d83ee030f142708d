import { useQuery } from "@tanstack/react-query";
import { Plus } from "lucide-react";
import { Link, useSearchParams } from "react-router-dom";
import { LoadMoreButton } from "../components/LoadMoreButton";
import { PageHeader } from "../components/PageHeader";
import { QueryState } from "../components/QueryState";
import { useDocumentTitle } from "../lib/document-title";
import { pageInput, useCursorPages } from "../lib/useCursorPages";
import { ObservationFilters } from "../observations/ObservationFilters";
import { filterOf, isFiltered, paramsOf, viewOf, type ObservationView } from "../observations/observation-view";
import { ObservationsEmpty } from "../observations/ObservationsEmpty";
import { BulkActions } from "../observations/BulkActions";
import { ObservationTable } from "../observations/ObservationTable";
import { useObservationSelection } from "../observations/useObservationSelection";
import { useObservatoryNames } from "../observations/useObservatoryNames";
import { trpc, trpcClient } from "../trpc";

const PAGE_SIZE = 50;

export function ObservationsPage() {
  useDocumentTitle("Observations");
  const [params, setParams] = useSearchParams();
  const view = viewOf(params);
  const input = { limit: PAGE_SIZE, ...filterOf(view) };
  const { query, items } = useCursorPages(
    trpc.observations.list.infiniteQueryKey(input),
    (cursor, signal) => trpcClient.observations.list.query(pageInput(input, cursor), { signal }),
    { keepPreviousList: true },
  );
  const observatories = useQuery(trpc.observatories.list.queryOptions({ limit: 200 }));
  const projects = useQuery(trpc.projects.list.queryOptions(undefined));
  const observatoryName = useObservatoryNames(
    observatories.data?.items,
    items.flatMap((item) => item.candidateObservatoryIds),
  );
  const selection = useObservationSelection(items.map((item) => item.id));
  const observatoryZone = (id: string) => observatories.data?.items.find((observatory) => observatory.id === id)?.timeZone;
  const show = (next: ObservationView, options?: { replace: boolean }) => setParams(paramsOf(next), { replace: options?.replace ?? false });

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
      <ObservationFilters view={view} onChange={show} />
      <QueryState
        query={query}
        loading="Loading observations"
        refreshing="Updating the list"
        error="Could not load observations"
        isEmpty={() => items.length === 0}
        empty={
          <ObservationsEmpty
            filtered={isFiltered(view)}
            hasProject={Boolean(projects.data?.items.length)}
            onClearFilters={() => setParams(new URLSearchParams(), { replace: true })}
          />
        }
      >
        {() => (
          <>
            <BulkActions items={items} selection={selection} />
            <ObservationTable
              items={items}
              observatoryName={observatoryName}
              selection={selection}
              observatoryZone={observatoryZone}
              sort={{ value: view.sort, onChange: (sort) => show({ ...view, sort }) }}
            />
            <LoadMoreButton query={query} className="mt-4" />
          </>
        )}
      </QueryState>
    </>
  );
}
