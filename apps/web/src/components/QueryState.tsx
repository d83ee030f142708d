import type { ReactNode } from "react";
import { Alert } from "./Alert";
import { Spinner } from "./Spinner";
import { summarizeError } from "../lib/errors";

/** The parts of a query result (plain or infinite) that decide what to show. */
export interface QueryStatus<T> {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  data: T | undefined;
  /** True while the data shown is an earlier answer kept on screen until this one comes. */
  isPlaceholderData?: boolean;
}

export interface QueryStateProps<T> {
  query: QueryStatus<T>;
  /** The spinner's text while loading, e.g. "Loading projects". */
  loading: string;
  /** Put before the server's message when loading fails, e.g. "Could not load projects". */
  error: string;
  /** The status shown above the earlier answer kept on screen while a new one loads, e.g. "Searching users". */
  refreshing?: string;
  /** Shown instead of `error` when the server answers NOT_FOUND (also what the caller may not see). */
  notFound?: ReactNode;
  /** Shown instead of the children when `isEmpty` says the data holds nothing. */
  empty?: ReactNode;
  isEmpty?(data: T): boolean;
  children?(data: T): ReactNode;
}

/**
 * Loading, failure and (given children) the data: a spinner while pending, the failure while failed,
 * and whatever data there is, so a failed refetch shows its error above what was already loaded.
 * An earlier answer kept on screen while the next loads shows under a status, never as an empty state:
 * "No user matches" belongs to the search that found nothing, not to the one still on its way.
 */
export function QueryState<T>({ query, loading, refreshing, error, notFound, empty, isEmpty, children }: QueryStateProps<T>) {
  const problem = query.isError ? summarizeError(query.error) : null;
  return (
    <>
      {query.isPending ? <Spinner label={loading} /> : null}
      {query.isPlaceholderData ? <Spinner label={refreshing ?? loading} /> : null}
      {problem ? (
        notFound && problem.code === "NOT_FOUND" ? (
          notFound
        ) : (
          <Alert tone="error">
            {error}: {problem.message}
          </Alert>
        )
      ) : null}
      {query.data !== undefined ? (isEmpty?.(query.data) ? (query.isPlaceholderData ? null : empty) : children?.(query.data)) : null}
    </>
  );
}
