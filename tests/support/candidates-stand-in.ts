import type { Deps } from "@meridian/domain/platform";
import { sql } from "drizzle-orm";

/**
 * Gives candidates to an observation assigned at the first of them, the state dispatch leaves one with candidates in.
 * For a test that needs it where dispatch assigns nothing (an observatory never connected, or busy) and no request can:
 * an operator's assignment names no observatory, so it is refused for one with candidates. Only the field is written;
 * status, observatory and key columns stay as they are.
 */
export async function writeCandidatesOfAnAssignedObservation(options: { db: Deps["db"]; observationId: string; candidateObservatoryIds: string[] }) {
  const { db, observationId, candidateObservatoryIds } = options;
  const written = await db.execute(sql`
    update observations set doc = jsonb_set(doc, '{candidateObservatoryIds}', ${JSON.stringify(candidateObservatoryIds)}::jsonb)
     where id = ${observationId} and status = 'assigned' and doc->>'observatoryId' = ${candidateObservatoryIds[0]!}`);
  if (written.count !== 1) throw new Error(`${observationId} is not assigned at ${candidateObservatoryIds[0]}`);
}
