import { sql, type SQL } from "drizzle-orm";

/**
 * Whether observation `alias` waits (pending) at the observatory `observatoryId` (a value or a column of the outer query): its
 * own, or (with candidates, while it waits at none) one of its candidates. Until the network plan decides among them, an
 * observation with candidates is dispatched at each, and the first to lock it takes it. Each arm has its index: the dispatch
 * order's, and the partial one of those waiting with candidates (migration 0024).
 */
export const waitingAt = ({ alias, observatoryId }: { alias: string; observatoryId: string | SQL }) => {
  const row = sql.raw(alias);
  const among = sql`${row}.candidate_observatory_ids @> array[${observatoryId}]::text[]`;
  const withCandidates = sql`${row}.observatory_id is null and ${row}.status = 'pending' and ${among}`;
  return sql`((${row}.observatory_id = ${observatoryId} and ${row}.status = 'pending') or (${withCandidates}))`;
};
