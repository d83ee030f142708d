import type { Executor } from "@meridian/db";
import { sql } from "drizzle-orm";

export const HOUR_MS = 3_600_000;

/**
 * Observing time a project used at an observatory within [from, to), in milliseconds: each stay
 * of its observations in `in_progress`, from that move to the next (the one that ends its
 * execution: acquisition_complete, failed, aborted or cancelled), clipped to the period; a stay
 * still under way counts up to `now`. An observation with candidates is charged where each stay ran (its history entry
 * names the observatory); one with a single observatory, or recorded before candidates existed, where it runs.
 */
export async function usedMs(options: { db: Executor; observatoryId: string; projectId: string; from: Date; to: Date; now: Date }): Promise<number> {
  const { db, observatoryId, projectId } = options;
  const [from, to, now] = [options.from, options.to, options.now].map((date) => date.toISOString());
  const [row] = await db.execute<{ used_ms: string | number | null }>(sql`
    select coalesce(sum(greatest(0, extract(epoch from
             least(coalesce(s.ended_at, ${now}::timestamptz), ${to}::timestamptz) - greatest(s.started_at, ${from}::timestamptz)))), 0) * 1000 as used_ms
      from (
        select h.doc->>'to' as status, (h.doc->>'at')::timestamptz as started_at,
               coalesce(h.doc->>'observatoryId', o.observatory_id) as ran_at,
               lead((h.doc->>'at')::timestamptz) over (partition by h.observation_id order by (h.doc->>'at')::timestamptz, h.created_at, h.id) as ended_at
          from observation_history h join observations o on o.id = h.observation_id
         where o.candidate_observatory_ids @> array[${observatoryId}]::text[] and o.project_id = ${projectId}
      ) s
     where s.status = 'in_progress' and s.ran_at = ${observatoryId}`);
  return Math.round(Number(row?.used_ms ?? 0));
}

/** Hours to two decimals, as the API shows them. */
export const hoursOf = (ms: number) => Math.round((ms / HOUR_MS) * 100) / 100;
