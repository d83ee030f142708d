import { hasCandidates, observationsCollection, storedFromRow, type ObservatoryDoc } from "@meridian/db";
import { sql } from "drizzle-orm";
import type { Actor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { publishObservatoryEvent } from "../../platform/events/publish";
import { addKeyedJobOrFollower } from "../../platform/jobs/add-job";
import { inTransaction, type InTransaction } from "../../platform/transaction";
import { observatoryUnavailableSince, reassignAfterMs, recordHistory } from "../observatories";
import { moveObservation } from "./transitions";

/** The history reason of the move (contract, "Network scheduling"). */
const OBSERVATORY_UNAVAILABLE_REASON = "observatory unavailable";
const FAILOVER_ACTOR = { kind: "system", id: "failover" } as const satisfies Actor;

/**
 * Asks for the failover sweep at `at` (when the observatory will have been unavailable `REASSIGN_AFTER_MINUTES`), once
 * the caller's transaction commits; keyed per observatory, so the latest change that left it unavailable sets the time.
 * The minute's run covers any other moment.
 */
export const queueReassignCheck = ({ t, observatoryId, at }: { t: Pick<InTransaction, "tx">; observatoryId: string; at: Date }) =>
  addKeyedJobOrFollower({ t, name: "observations_failover", payload: { observatoryId }, jobKey: `failover:${observatoryId}`, runAt: at });

/**
 * The failover (contract, "Network scheduling"): every observation assigned and not started at an observatory that has
 * been offline, unsafe or under a weather hold for `REASSIGN_AFTER_MINUTES` (`observatoryUnavailableSince`), and that
 * names other candidates, goes back to pending with the reason "observatory unavailable", to be planned again. Each in
 * its own transaction, judged again there under the observatory's row (FOR SHARE: its reports wait) and the
 * observation's: a sweep running beside this one, a start reported meanwhile or the observatory's return moves nothing.
 * Answers the observations moved.
 */
export async function reassignFromUnavailableObservatories(options: { deps: Deps }): Promise<string[]> {
  const { deps } = options;
  const rows = await deps.db.execute<{ id: string; observatory_id: string }>(sql`
    select o.id, o.observatory_id from observations o join observatories a on a.id = o.observatory_id
     where o.status = 'assigned'
       and cardinality(o.candidate_observatory_ids) > 1
       and (not (a.doc->'connection'->>'online')::boolean or a.doc->'conditions'->>'safe' = 'false' or a.doc->'conditions'->>'weatherHold' = 'true')
     order by o.observatory_id, o.id`);
  const moved: string[] = [];
  for (const row of rows) {
    if (await reassign({ deps, observationId: row.id, observatoryId: row.observatory_id })) moved.push(row.id);
  }
  return moved;
}

async function reassign(options: { deps: Deps; observationId: string; observatoryId: string }): Promise<boolean> {
  const { deps, observationId, observatoryId } = options;
  return inTransaction(deps, async (t) => {
    // The observatory first, then the observation: the lock order of dispatch and of the connection's own moves.
    const [row] = await t.tx.execute<{ id: string; doc: ObservatoryDoc; created_at: string; updated_at: string }>(sql`
      select id, doc, created_at, updated_at from observatories where id = ${observatoryId} for share`);
    if (!row) return false;
    const away = await observatoryUnavailableSince({ db: t.tx, observatory: storedFromRow(row) });
    if (!away || away.since.getTime() + reassignAfterMs(t.env) > t.now().getTime()) return false;
    const observation = await observationsCollection.get(t.tx, observationId, { forUpdate: true });
    if (observation?.doc.status !== "assigned" || observation.doc.observatoryId !== observatoryId || !hasCandidates(observation.doc)) return false;
    await moveObservation({ t, observation, to: "pending", actor: FAILOVER_ACTOR, reason: OBSERVATORY_UNAVAILABLE_REASON });
    // Its plugin is told at once when it is connected (unsafe, on a hold), and on its next hello otherwise (`observatoryHello`).
    await recordHistory({
      t,
      observatoryId,
      type: "observation_reassigned",
      actorId: null,
      // `at`, the server's clock: a hello compares it with when the observatory was last seen (`withdrawnFrom`).
      data: { observationId, reason: OBSERVATORY_UNAVAILABLE_REASON, unavailable: away.kinds, since: away.since.toISOString(), at: t.now().toISOString() },
    });
    await publishObservatoryEvent({ t, observatoryIds: [observatoryId], event: { type: "cancel", data: { observationId } } });
    return true;
  });
}
