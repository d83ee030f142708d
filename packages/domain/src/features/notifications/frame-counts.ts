import type { Executor } from "@meridian/db";
import { sql } from "drizzle-orm";

/** An observation's frames as its completion email counts them: all of them, those accepted, and those still being analysed. */
export async function frameCounts(options: { db: Executor; observationId: string }): Promise<{ frames: number; accepted: number; queued: number }> {
  const [row] = await options.db.execute<{ frames: number; accepted: number; queued: number }>(sql`
    select count(*)::int as frames, (count(*) filter (where f.doc->'frame'->>'grade' = 'accepted'))::int as accepted,
           (count(*) filter (where f.doc->'frame'->>'status' = 'queued'))::int as queued
      from files f
     where f.observation_id = ${options.observationId} and jsonb_typeof(f.doc->'frame') = 'object'`);
  return row ?? { frames: 0, accepted: 0, queued: 0 };
}
