import type { ObservationDoc, StoredDocument } from "@meridian/db";
import type { ObservationStatus } from "@meridian/rules";
import type { Actor } from "../../platform/actor";
import { defineDoor } from "../../platform/door";
import type { InTransaction } from "../../platform/transaction";

/**
 * What an observatory asks of observations, which build on observatories (their timing, their removal's hold): a
 * dispatch when it can take work again, a failover check when it cannot, and a move of the observations it holds when it
 * goes offline or is removed.
 * Observations plug it in from their own index.ts (`moveObservationsWith`), so that observatories import them not.
 */
export interface ObservationsDoor {
  /** Queues a dispatch of the observatory in the caller's transaction. */
  queueDispatch(options: { t: Pick<InTransaction, "tx">; observatoryId: string }): Promise<unknown>;
  /** Asks for the network plan to be made again in the caller's transaction (a change that can only hold work back). */
  queueNetworkPlan(options: { t: Pick<InTransaction, "tx"> }): Promise<unknown>;
  /** Asks for the failover sweep at `at`, when the observatory will have been unavailable long enough, in the caller's transaction. */
  queueReassignCheck(options: { t: Pick<InTransaction, "tx">; observatoryId: string; at: Date }): Promise<unknown>;
  /** Moves an observation to another status through the one writer of statuses. */
  moveObservation(options: {
    t: InTransaction;
    observation: StoredDocument<ObservationDoc>;
    to: ObservationStatus;
    actor: Actor;
    reason?: string | null;
  }): Promise<StoredDocument<ObservationDoc>>;
}

const door = defineDoor<ObservationsDoor>("observations are not plugged in: import @meridian/domain/observations in a process that changes observatories");

export const moveObservationsWith = door.fill;

/** The observations' door; a process that changes observatories without having loaded observations fails loudly. */
export const observations = door.get;
