import { observationsCollection, observatoriesCollection, observatoryKeysCollection, tables, type ObservatoryDoc, type StoredDocument } from "@meridian/db";
import { activeStatuses } from "@meridian/rules";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { UserActor } from "../../platform/actor";
import { recordAudit } from "../audit";
import { invalidateCaches } from "../../platform/cache/request-caches";
import type { Deps } from "../../platform/deps";
import { AppError, isAppError } from "../../platform/errors";
import { scopeAnnouncements, scopeInvitations, loadOrganizationAccess } from "../organizations";
import { requireObservatoryPermission } from "../permissions";
import { inTransaction, type InTransaction } from "../../platform/transaction";
import { observations } from "./observations-door";
import { recordHistory } from "./observatories";

/** The status reason of every observation a removal cancels (contract: DELETE /observatories/{id}). */
export const OBSERVATORY_REMOVED_REASON = "observatory removed";

/**
 * Holds the observatory against a removal until the caller's transaction ends, and says whether
 * it is still there: a new observation written under this hold cannot be left pending at an
 * observatory whose removal cancelled everything waiting there.
 */
export async function holdLiveObservatory(options: { t: Pick<InTransaction, "tx">; observatoryId: string }): Promise<boolean> {
  const [row] = await options.t.tx.execute<{ removed: boolean }>(sql`
    select doc->>'removedAt' is not null as removed from observatories where id = ${options.observatoryId} for key share`);
  return row !== undefined && !row.removed;
}

/** The owner, `can_manage_observatories` of the owning organization (its owner too), or a server admin. */
async function mayRemove(t: InTransaction, actor: UserActor, observatory: StoredDocument<ObservatoryDoc>): Promise<boolean> {
  const { owner } = observatory.doc;
  if (actor.isServerAdmin) return true;
  if (owner.kind === "user") return owner.id === actor.id;
  const access = await loadOrganizationAccess({ db: t.tx, actor, organizationId: owner.id }).catch((error: unknown) => {
    if (isAppError(error) && error.code === "NOT_FOUND") return null;
    throw error;
  });
  return Boolean(access?.permissions.can_manage_observatories);
}

/**
 * Removes an observatory (contract: DELETE /observatories/{id}). Refused while it holds an
 * observation (assigned, in progress, suspended or acquisition complete: 409 OBSERVATORY_BUSY).
 * Its pending and paused observations are cancelled (each move recorded and notified as any
 * cancel), its keys revoked (a live plugin connection is closed when the revocation reaches its
 * process), its active announcements cancelled, and the removal recorded in its history and the
 * audit log. The row stays, marked `removedAt`: its observations, their history and files keep
 * their readers, while the observatory leaves every list and its own routes answer 404.
 */
export async function removeObservatory(options: { deps: Deps; actor: UserActor; observatoryId: string }) {
  const { deps, actor, observatoryId } = options;
  await inTransaction(deps, async (t) => {
    // Dispatch, creations and plugin reports take this row's lock: none of them runs beside the removal.
    const observatory = await observatoriesCollection.get(t.tx, observatoryId, { forUpdate: true });
    if (!observatory) throw new AppError("NOT_FOUND", "No such observatory");
    await requireObservatoryPermission({ db: t.tx, actor, observatoryId, permission: "can_view" });
    if (!(await mayRemove(t, actor, observatory)))
      throw new AppError("FORBIDDEN", "Only the observatory's owner, a manager of observatories of its organization or a server admin may remove it");

    // Every observation not yet ended, locked in one order, so none moves while this decides: those it holds, and those
    // waiting with candidates of which it is the last not removed (one with others left waits for them).
    const open = await t.tx.execute<{ id: string; status: string }>(sql`
      select id, status from observations w
       where status in ${[...activeStatuses, "pending", "paused"]}
         and (observatory_id = ${observatoryId}
           or (observatory_id is null and candidate_observatory_ids @> array[${observatoryId}]::text[]
             and not exists (select 1 from observatories c
                              where c.id = any(w.candidate_observatory_ids) and c.id <> ${observatoryId} and c.doc->>'removedAt' is null)))
       order by id for update`);
    const running = open.find((row) => (activeStatuses as readonly string[]).includes(row.status));
    if (running)
      throw new AppError(
        "OBSERVATORY_BUSY",
        `Observation ${running.id} is ${running.status.replace("_", " ")} at this observatory; remove it once that observation has ended or been cancelled`,
      );
    for (const { id } of open) {
      const observation = await observationsCollection.get(t.tx, id, { forUpdate: true });
      await observations().moveObservation({ t, observation: observation!, to: "cancelled", actor, reason: OBSERVATORY_REMOVED_REASON });
    }

    await scopeInvitations().endAll({ t, kind: "observatory", scopeId: observatoryId });
    const { observatoryKeys } = tables;
    const keys = await observatoryKeysCollection.findMany(
      t.tx,
      and(eq(observatoryKeys.observatoryId, observatoryId), isNull(sql`${observatoryKeys.doc}->>'revokedAt'`))!,
      sql`${observatoryKeys.id}`,
      100_000,
    );
    const now = t.now().toISOString();
    for (const key of keys) {
      await observatoryKeysCollection.update(t.tx, key.id, (doc) => ({ ...doc, revokedAt: now }));
      // The hub re-checks every connection using the key and closes it (as revoking one key does).
      await invalidateCaches({ t, change: { kind: "token", tokenHash: key.doc.keyHash } });
    }
    const announcements = await scopeAnnouncements().cancelAll({
      t,
      actor,
      scope: "observatory",
      scopeId: observatoryId,
      reason: `The observatory ${observatory.doc.name} was removed.`,
    });

    await observatoriesCollection.update(t.tx, observatoryId, (doc) => ({ ...doc, removedAt: now, connection: { ...doc.connection, online: false } }));
    const summary = { cancelledObservations: open.length, revokedKeys: keys.length, cancelledAnnouncements: announcements };
    await recordHistory({ t, observatoryId, type: "removed", actorId: actor.id, data: { name: observatory.doc.name, ...summary } });
    const scope = { kind: "observatory" as const, id: observatoryId, name: observatory.doc.name };
    await recordAudit({
      t,
      actor,
      action: "observatory.removed",
      target: scope,
      scope,
      before: { name: observatory.doc.name, owner: observatory.doc.owner },
      after: summary,
    });
  });
}
