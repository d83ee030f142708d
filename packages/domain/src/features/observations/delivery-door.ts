import type { FileDelivery } from "@meridian/db";
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

let door: DeliveryDoor | undefined;

export function deliverFilesWith(delivery: DeliveryDoor) {
  door = delivery;
}

/** Delivery's door; a process that stores files for a destination without having loaded delivery fails loudly. */
export function deliveries(): DeliveryDoor {
  if (!door) throw new Error("delivery is not plugged in: import @meridian/domain/delivery in a process that stores observation files");
  return door;
}
