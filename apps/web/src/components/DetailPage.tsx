import type { ReactNode } from "react";
import { ArrowLeft, SearchX } from "lucide-react";
import { Link } from "react-router-dom";
import { EmptyState } from "./EmptyState";
import { QueryState, type QueryStatus } from "./QueryState";

export interface DetailPageProps<T> {
  query: QueryStatus<T>;
  /** What the page shows, in lower case: "observatory". */
  what: string;
  /** The list it belongs to. */
  backTo: string;
  /** The back link's text: "Observatories". */
  backText: string;
  /** The link out of the "does not exist" message: "Back to your observatories". */
  backLabel: string;
  children(data: T): ReactNode;
}

/** A page about one thing: a link back to its list, then the thing, or why it cannot be shown. */
export function DetailPage<T>({ query, what, backTo, backText, backLabel, children }: DetailPageProps<T>) {
  return (
    <>
      <Link to={backTo} className="mb-3 inline-flex items-center gap-1 text-sm font-medium text-slate-500 hover:text-slate-700">
        <ArrowLeft aria-hidden="true" className="size-4" />
        {backText}
      </Link>
      {query.data ? (
        children(query.data)
      ) : (
        <QueryState
          query={query}
          loading={`Loading ${what}`}
          error={`Could not load the ${what}`}
          notFound={
            <EmptyState icon={SearchX} title={`This ${what} does not exist`}>
              It may have been removed, or you are not a member.{" "}
              <Link to={backTo} className="font-semibold text-indigo-600 hover:text-indigo-500">
                {backLabel}
              </Link>
            </EmptyState>
          }
        />
      )}
    </>
  );
}
