import type { ObservatoryDoc } from "@meridian/db";
import { sql } from "drizzle-orm";
import type { Deps } from "../../platform/deps";
import { observatoryTimeZone } from "../observatories";

/** Each observatory's IANA time zone (its own, else from its location), read in one query: the plan's readers show times in it. */
export async function observatoryZones(options: { deps: Deps; observatoryIds: string[] }): Promise<Map<string, string>> {
  const { deps, observatoryIds } = options;
  if (observatoryIds.length === 0) return new Map();
  const rows = await deps.db.execute<{ id: string; doc: Pick<ObservatoryDoc, "timeZone" | "location"> }>(sql`
    select id, jsonb_build_object('timeZone', doc->'timeZone', 'location', doc->'location') as doc from observatories where id in ${observatoryIds}`);
  return new Map(rows.map((row) => [row.id, observatoryTimeZone({ doc: row.doc })]));
}
