import type { UserActor } from "../../platform/actor";
import type { ObservationFilter } from "./observation-query";
import { listObservations } from "./observations";

type ListOptions = Parameters<typeof listObservations>[0];

/** Who asks (a server admin reads everything) and exactly what: the filters given, in a fixed order, and the page size. */
function firstPageKey(actor: UserActor, filter: ObservationFilter, limit: number): string {
  const given = Object.entries(filter)
    .filter(([name, value]) => value !== undefined && name !== "limit" && name !== "cursor")
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify([actor.id, actor.isServerAdmin, limit, given]);
}

/**
 * A page of the list as `{items, nextCursor}` JSON. A first page is served from the process's
 * cache until anything it reads changes (inTransaction announces such writes from any process)
 * or REQUEST_CACHE_TTL_MS passes, and the requests that find it missing together share one read;
 * later pages, a cursor's, are read each time.
 */
export async function listObservationsAsJson(options: ListOptions): Promise<string> {
  if (options.cursor) return JSON.stringify(await listObservations(options));
  const { deps, actor } = options;
  const { caches } = deps;
  const key = firstPageKey(actor, options.filter, options.limit);
  const now = deps.now().getTime();
  const cached = caches.observationPages.get(key, now);
  if (cached) return cached.json;
  const page = await caches.observationPages.fill(
    key,
    async () => ({ json: JSON.stringify(await listObservations(options)) }),
    () => now + caches.ttlMs,
  );
  return page.json;
}

/** The same page as an object (the app's tRPC face), from the same cache. */
export async function listObservationsCached(options: ListOptions): Promise<Awaited<ReturnType<typeof listObservations>>> {
  return JSON.parse(await listObservationsAsJson(options)) as Awaited<ReturnType<typeof listObservations>>;
}
