import { useInfiniteQuery, type QueryKey } from "@tanstack/react-query";

export interface CursorPage<TItem> {
  items: TItem[];
  nextCursor: string | null;
}

/**
 * A list the server sends in pages, each naming the cursor of the next; always refetched on arrival.
 * Pages may carry more than their items (totals, say): `query.data.pages` keeps them whole.
 * Not tRPC's `infiniteQueryOptions`: it adds a `direction` field the server's strict input refuses.
 */
export function useCursorPages<TPage extends CursorPage<unknown>>(queryKey: QueryKey, fetchPage: (cursor: string | null) => Promise<TPage>) {
  const query = useInfiniteQuery({
    queryKey,
    queryFn: ({ pageParam }) => fetchPage(pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
    staleTime: 0,
  });
  const items = (query.data?.pages.flatMap((page) => page.items) ?? []) as Array<TPage["items"][number]>;
  return { query, items };
}
