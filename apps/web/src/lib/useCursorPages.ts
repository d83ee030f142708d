import { infiniteQueryOptions, keepPreviousData, useInfiniteQuery, type QueryKey } from "@tanstack/react-query";

export interface CursorPage<TItem> {
  items: TItem[];
  nextCursor: string | null;
}

/** A list's input for one page: the first without a cursor, each later one with its cursor. */
export const pageInput = <TInput extends object>(input: TInput, cursor: string | null): TInput | (TInput & { cursor: string }) =>
  cursor ? { ...input, cursor } : input;

/**
 * A list the server sends in pages, each naming the cursor of the next; always refetched on arrival.
 * Pages may carry more than their items (totals, say): `query.data.pages` keeps them whole.
 * Not tRPC's `infiniteQueryOptions`: it adds a `direction` field the server's strict input refuses.
 * `fetchPage` gets TanStack's signal, so a read the page no longer wants (cancelled because a change
 * was heard while it was on its way, or left by its last observer) stops instead of completing unseen.
 * `keepPreviousList` keeps the last list on screen while the first page of a new search or filter is on its way
 * (`query.isPlaceholderData` says so), so each settled search does not swap the list for a spinner
 * and take the focus of a row that is still there once the answer comes.
 */
export function useCursorPages<TPage extends CursorPage<unknown>>(
  queryKey: QueryKey,
  fetchPage: (cursor: string | null, signal: AbortSignal) => Promise<TPage>,
  { keepPreviousList = false }: { keepPreviousList?: boolean } = {},
) {
  const query = useInfiniteQuery({ ...cursorPagesOptions(queryKey, fetchPage), ...(keepPreviousList ? { placeholderData: keepPreviousData } : {}) });
  const items = (query.data?.pages.flatMap((page) => page.items) ?? []) as Array<TPage["items"][number]>;
  return { query, items };
}

/** The infinite query behind `useCursorPages`. */
export const cursorPagesOptions = <TPage extends CursorPage<unknown>>(
  queryKey: QueryKey,
  fetchPage: (cursor: string | null, signal: AbortSignal) => Promise<TPage>,
) =>
  infiniteQueryOptions({
    queryKey,
    queryFn: ({ pageParam, signal }) => fetchPage(pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
    staleTime: 0,
  });
