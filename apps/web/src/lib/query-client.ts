import { QueryClient, type InvalidateOptions, type InvalidateQueryFilters } from "@tanstack/react-query";

/**
 * TanStack Query answers an invalidation that comes while a query's first fetch is still on its
 * way by reusing that fetch (it cancels only a refetch of data it already has), and the answer then
 * counts as fresh. A page that opened just before a change and heard of it over `/ws` while its
 * first read was out would show what it read before the change until something else read again.
 * Here an invalidation first cancels such fetches, so the refetch it starts reads after the change.
 */
export class ChangeFollowingQueryClient extends QueryClient {
  override async invalidateQueries(filters?: InvalidateQueryFilters, options?: InvalidateOptions): Promise<void> {
    const firstReads = this.getQueryCache()
      .findAll(filters)
      .filter((query) => query.state.data === undefined && query.state.fetchStatus === "fetching");
    await Promise.all(firstReads.map((query) => query.cancel({ revert: true })));
    return super.invalidateQueries(filters, options);
  }
}
