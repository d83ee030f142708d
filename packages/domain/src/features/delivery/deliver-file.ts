import { filesCollection, observationsCollection, type FileDelivery, type FileDoc, type StoredDocument } from "@meridian/db";
import type { Deps } from "../../platform/deps";
import { publishUserEvent } from "../../platform/events/publish";
import { addJob } from "../../platform/jobs/add-job";
import { killedAttemptsReason } from "../../platform/jobs/job-task";
import { observationReaderIds } from "../observations";
import { openExternalStorageSecrets, findStorageDestination } from "../organizations";
import { inTransaction, type InTransaction } from "../../platform/transaction";
import { DeliveryFailure } from "./http";
import { notifyDeliveryFailed } from "./notify-failure";
import { targetFor } from "./targets";

/** At least 8 attempts over at least 12 hours (contract): the wait after each failed attempt, in minutes (13 h 6 min in all). */
const WAIT_AFTER_ATTEMPT_MINUTES = [1, 5, 15, 45, 120, 240, 360];
const DELIVERY_ATTEMPTS = WAIT_AFTER_ATTEMPT_MINUTES.length + 1;
/** graphile-worker's own retries are for an attempt that was killed or threw past the handling below. */
export const CRASH_RETRIES = 5;

/** Queues the copy of a file to a destination, in the caller's transaction; a waiting one of the same file and destination is replaced. */
export async function queueDelivery(options: { t: Pick<InTransaction, "tx">; fileId: string; destinationId: string; runAt?: Date }) {
  const { t, fileId, destinationId } = options;
  await addJob({
    t,
    name: "deliver_file",
    payload: { fileId, destinationId },
    runAt: options.runAt,
  });
}

export const pendingDelivery = (destinationId: string): FileDelivery => ({
  destinationId,
  status: "pending",
  attempts: 0,
  remotePath: null,
  deliveredAt: null,
  error: null,
});

/** Writes the delivery's new state and tells the observation's readers; answers the file as written. */
async function recordDelivery(options: { t: InTransaction; file: StoredDocument<FileDoc>; destinationId: string; change: Partial<FileDelivery> }) {
  const { t, file, destinationId, change } = options;
  const updated = await filesCollection.update(t.tx, file.id, (doc) => ({
    ...doc,
    deliveries: (doc.deliveries ?? []).map((item) => (item.destinationId === destinationId ? { ...item, ...change } : item)),
  }));
  const delivery = updated?.doc.deliveries?.find((item) => item.destinationId === destinationId);
  const observation = await observationsCollection.get(t.tx, file.doc.observationId);
  if (delivery && observation)
    await publishUserEvent({
      t,
      userIds: await observationReaderIds({ db: t.tx, doc: observation.doc }),
      event: {
        type: "observation.file_delivery",
        data: { observationId: file.doc.observationId, fileId: file.id, destinationId, status: delivery.status, attempts: delivery.attempts },
      },
    });
  return delivery;
}

/**
 * One attempt at copying a file to its observation's destination (the `deliver_file` job): the
 * stored object is streamed to the destination, never held whole. Secrets are opened here and only
 * here. A failed attempt is recorded with its reason and the next one queued after a growing wait
 * (or the remote's Retry-After, when longer); after the last, the delivery is `failed` and the
 * observation's owner and the organization's storage managers are told.
 */
/**
 * A name as one folder of a remote path: no separators, and never `.` or `..` (a project so named
 * would otherwise reach above the destination's folder on a path-addressed store such as Dropbox).
 */
const folderName = (name: string) => {
  const flat = name.replace(/[/\\]/g, "-");
  return flat === "." || flat === ".." ? flat.replace(/\./g, "-") : flat;
};

export async function deliverFile(options: { deps: Deps; fileId: string; destinationId: string }): Promise<FileDelivery["status"] | "skipped"> {
  const { deps, fileId, destinationId } = options;
  const file = await filesCollection.get(deps.db, fileId);
  const delivery = file?.doc.deliveries?.find((item) => item.destinationId === destinationId);
  if (!file || delivery?.status !== "pending") return "skipped";
  // Still pending after its last attempt: that attempt was killed before it could record its end.
  if (delivery.attempts >= DELIVERY_ATTEMPTS) {
    const reason = killedAttemptsReason({ attempts: delivery.attempts, maxAttempts: DELIVERY_ATTEMPTS, lastError: null });
    return (await giveUpDelivery({ deps, fileId, destinationId, reason })) ? "failed" : "skipped";
  }
  const observation = await observationsCollection.get(deps.db, file.doc.observationId);
  const found = observation && (await findStorageDestination({ db: deps.db, projectId: observation.doc.projectId, destinationId }));
  // Counted as it begins, so that an attempt killed mid-way (which records nothing after) counts too.
  const attempts = delivery.attempts + 1;
  await inTransaction(deps, (t) => recordDelivery({ t, file, destinationId, change: { attempts } }));
  let remotePath: string | null = null;
  let failure: DeliveryFailure;
  try {
    if (!observation || !found) throw new DeliveryFailure("The destination is no longer one of the organization's", 0);
    const folders = [found.project.doc.name, `${observation.doc.name} (${observation.id})`].map(folderName);
    const target = targetFor({ env: deps.env, destination: found.destination, secrets: openExternalStorageSecrets({ deps, destination: found.destination }) });
    const stored = await deps.storage.get(file.doc.objectKey);
    if (!stored) throw new DeliveryFailure("The file's bytes are missing from this server's storage");
    try {
      remotePath = await target.write({ folders, filename: file.doc.filename, size: file.doc.sizeBytes, contentType: file.doc.contentType, body: stored.body });
    } finally {
      stored.body.destroy();
    }
  } catch (error) {
    failure = error instanceof DeliveryFailure ? error : new DeliveryFailure(`Unexpected error: ${(error as Error).message}`.slice(0, 500));
    deps.logger.warn({ fileId, destinationId, attempts, reason: failure.message }, "a delivery attempt failed");
  }
  return inTransaction(deps, async (t) => {
    if (remotePath !== null) {
      await recordDelivery({ t, file, destinationId, change: { status: "delivered", attempts, remotePath, deliveredAt: t.now().toISOString(), error: null } });
      return "delivered";
    }
    const gone = !observation || !found;
    if (gone || attempts >= DELIVERY_ATTEMPTS) {
      await recordDelivery({ t, file, destinationId, change: { status: "failed", attempts, error: failure.message } });
      if (observation) await notifyDeliveryFailed({ t, observation, file, organization: found?.organization, reason: failure.message });
      return "failed";
    }
    await recordDelivery({ t, file, destinationId, change: { attempts, error: failure.message } });
    const waitMs = Math.max(WAIT_AFTER_ATTEMPT_MINUTES[attempts - 1]! * 60_000, failure.retryAfterMs ?? 0);
    await queueDelivery({ t, fileId, destinationId, runAt: new Date(t.now().getTime() + waitMs) });
    return "pending";
  });
}

/**
 * Ends a delivery that is still pending as `failed` with `reason`, and tells those a failed delivery
 * is told to (as after its last failed attempt); answers whether it did. Its attempts stay as counted.
 */
export async function giveUpDelivery(options: { deps: Deps; fileId: string; destinationId: string; reason: string }): Promise<boolean> {
  const { deps, fileId, destinationId, reason } = options;
  return inTransaction(deps, async (t) => {
    const file = await filesCollection.get(t.tx, fileId, { forUpdate: true });
    if (file?.doc.deliveries?.find((item) => item.destinationId === destinationId)?.status !== "pending") return false;
    await recordDelivery({ t, file, destinationId, change: { status: "failed", error: reason } });
    const observation = await observationsCollection.get(t.tx, file.doc.observationId);
    const found = observation && (await findStorageDestination({ db: t.tx, projectId: observation.doc.projectId, destinationId }));
    if (observation) await notifyDeliveryFailed({ t, observation, file, organization: found?.organization, reason });
    t.logger.warn({ fileId, destinationId, reason }, "a delivery whose attempts ran out without an end failed");
    return true;
  });
}
