import { filesCollection } from "@meridian/db";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { loadObservationAccess, presentFile } from "../observations";
import { loadOrganizationAccess, requireOrganizationPermission, openExternalStorageSecrets } from "../organizations";
import { inTransaction } from "../../platform/transaction";
import { DeliveryFailure } from "./http";
import { pendingDelivery, queueDelivery } from "./deliver-file";
import { targetFor } from "./targets";

/** The owner or `can_operate` starts a file's delivery over (a failed one, or one to send again): pending, no attempts, at once. */
export async function retryFileDelivery(options: { deps: Deps; actor: UserActor; fileId: string; destinationId: string }) {
  const { deps, actor, fileId, destinationId } = options;
  return inTransaction(deps, async (t) => {
    const file = await filesCollection.get(t.tx, fileId, { forUpdate: true });
    if (!file) throw new AppError("NOT_FOUND", "No such file");
    const access = await loadObservationAccess({ db: t.tx, actor, observationId: file.doc.observationId }).catch((error: unknown) => {
      throw error instanceof AppError && error.code === "NOT_FOUND" ? new AppError("NOT_FOUND", "No such file") : error;
    });
    if (!access.isOwner && !access.canOperate)
      throw new AppError("FORBIDDEN", "Only the observation's owner or an operator of its observatory may retry a delivery");
    if (!file.doc.deliveries?.some((item) => item.destinationId === destinationId))
      throw new AppError("NOT_FOUND", "The file has no delivery to that destination");
    const updated = await filesCollection.update(t.tx, fileId, (doc) => ({
      ...doc,
      deliveries: (doc.deliveries ?? []).map((item) => (item.destinationId === destinationId ? pendingDelivery(destinationId) : item)),
    }));
    await queueDelivery({ t, fileId, destinationId });
    return presentFile(updated!);
  });
}

/** `can_manage_storage` checks a destination's settings and secrets: a small file written and removed again; the answer says what went wrong. */
export async function testStorageDestination(options: { deps: Deps; actor: UserActor; organizationId: string; destinationId: string }) {
  const { deps, actor, organizationId, destinationId } = options;
  const access = await loadOrganizationAccess({ db: deps.db, actor, organizationId });
  requireOrganizationPermission({ access, permission: "can_manage_storage" });
  const destination = access.organization.doc.externalStorage.find((item) => item.id === destinationId);
  if (!destination) throw new AppError("NOT_FOUND", "No such external storage destination in this organization");
  try {
    await targetFor({ env: deps.env, destination, secrets: openExternalStorageSecrets({ deps, destination }) }).probe();
    return { ok: true };
  } catch (error) {
    return { ok: false, error: error instanceof DeliveryFailure ? error.message : "The destination could not be reached" };
  }
}
