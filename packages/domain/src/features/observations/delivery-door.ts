import type { FileDelivery } from "@meridian/db";
import { defineDoor } from "../../platform/door";
import type { InTransaction } from "../../platform/transaction";

/**
 * What observations' files ask of delivery, which builds on observations: a new file's copy to its observation's
 * storage destination. Delivery plugs it in from its own index.ts (`deliverFilesWith`).
 */
export interface DeliveryDoor {
  /** The file record's entry for a copy not yet made. */
  pending(destinationId: string): FileDelivery;
  /** Queues the copy in the upload's transaction. */
  queue(options: { t: Pick<InTransaction, "tx">; fileId: string; destinationId: string }): Promise<void>;
}

const door = defineDoor<DeliveryDoor>("delivery is not plugged in: import @meridian/domain/delivery in a process that stores observation files");

export const deliverFilesWith = door.fill;

/** Delivery's door; a process that stores files for a destination without having loaded delivery fails loudly. */
export const deliveries = door.get;
