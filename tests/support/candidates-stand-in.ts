import type { Deps } from "@meridian/domain/platform";
import { sql } from "drizzle-orm";

/**
 * STAND-IN until issue 60's candidates API lands (`candidateObservatoryIds` on submission): writes the candidates into
 * the document of an observation submitted the normal way to their first, as the candidates' documents hold them. Only
 * the field is written; status, observatory and key columns stay as they are. Replace each call with a submission that
 * names the candidates once that API is merged.
 */
export async function writeCandidatesIntoDocumentUntilTheApiHasThem(options: { db: Deps["db"]; observationId: string; candidateObservatoryIds: string[] }) {
  const { db, observationId, candidateObservatoryIds } = options;
  const written = await db.execute(sql`
    update observations set doc = jsonb_set(doc, '{candidateObservatoryIds}', ${JSON.stringify(candidateObservatoryIds)}::jsonb)
     where id = ${observationId} and doc->>'observatoryId' = ${candidateObservatoryIds[0]!}`);
  if (written.count !== 1) throw new Error(`${observationId} was not submitted to ${candidateObservatoryIds[0]}`);
}
