import type { Executor } from "@meridian/db";
import type { UserActor } from "../../platform/actor";
import { AppError } from "../../platform/errors";
import type { InTransaction } from "../../platform/transaction";
import { holdLiveObservatory } from "../observatories";
import { resolveObservatoryAccess } from "../permissions";

/** Where an observation runs, as its document holds it: one observatory (its own candidate), or candidates and none yet. */
export interface WhereItRuns {
  observatoryId: string | null;
  candidateObservatoryIds: string[];
}

/** Where a creation, clone or edit says it runs (the schemas let one of the two through at most), or null when it says neither. */
export function whereItRuns(given: { observatoryId?: string | undefined; candidateObservatoryIds?: string[] | undefined }): WhereItRuns | null {
  if (given.candidateObservatoryIds) return { observatoryId: null, candidateObservatoryIds: given.candidateObservatoryIds };
  if (given.observatoryId) return { observatoryId: given.observatoryId, candidateObservatoryIds: [given.observatoryId] };
  return null;
}

/**
 * `can_observe` on every observatory named, read in one query: one the caller cannot view is 404 NOT_FOUND (as a single
 * observatory is), one viewed without `can_observe` 403 FORBIDDEN; a removed one is not there (404).
 */
export async function requireObservingAtEach(options: { db: Executor; actor: UserActor; observatoryIds: string[] }) {
  const { db, actor, observatoryIds } = options;
  const access = await resolveObservatoryAccess({ db, userId: actor.id, isServerAdmin: actor.isServerAdmin, observatoryIds });
  for (const observatoryId of observatoryIds) {
    const each = access.get(observatoryId);
    if (!each?.can_view) throw new AppError("NOT_FOUND", observatoryIds.length > 1 ? `No such observatory: ${observatoryId}` : "No such observatory");
    if (!each.can_observe)
      throw new AppError(
        "FORBIDDEN",
        observatoryIds.length > 1 ? `This needs can_observe on observatory ${observatoryId}` : "This needs can_observe on the observatory",
      );
  }
}

/**
 * Holds every observatory named against a removal until the transaction ends (`holdLiveObservatory`), in id order, so two
 * transactions holding several never wait for each other; answers whether all of them are still there.
 */
export async function holdLiveObservatories(options: { t: Pick<InTransaction, "tx">; observatoryIds: string[] }): Promise<boolean> {
  const { t } = options;
  const held = await Promise.all([...new Set(options.observatoryIds)].sort().map((observatoryId) => holdLiveObservatory({ t, observatoryId })));
  return held.every(Boolean);
}
