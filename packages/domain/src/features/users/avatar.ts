import type { UserActor } from "../../platform/actor";
import { randomUUID } from "node:crypto";
import { usersCollection } from "@meridian/db";
import { invalidateCaches } from "../../platform/cache/request-caches";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { inTransaction } from "../../platform/transaction";

export const MAX_AVATAR_BYTES = 2 * 1024 * 1024;

const signatures: Array<{ contentType: string; bytes: number[] }> = [
  { contentType: "image/png", bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { contentType: "image/jpeg", bytes: [0xff, 0xd8, 0xff] },
  { contentType: "image/gif", bytes: [0x47, 0x49, 0x46, 0x38, 0x37, 0x61] },
  { contentType: "image/gif", bytes: [0x47, 0x49, 0x46, 0x38, 0x39, 0x61] },
];

/** Recognises JPG, PNG and GIF by their leading bytes; the declared content type is not trusted. */
export function detectImageType(bytes: Uint8Array): string | undefined {
  return signatures.find((signature) => signature.bytes.every((byte, index) => bytes[index] === byte))?.contentType;
}

export async function setAvatar(options: { deps: Deps; actor: UserActor; image: Buffer }) {
  const { deps, actor, image } = options;
  const userId = actor.id;
  if (image.length > MAX_AVATAR_BYTES) throw new AppError("PAYLOAD_TOO_LARGE", "Avatars may be at most 2 MB");
  const contentType = detectImageType(image);
  if (!contentType) throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Avatars must be JPG, PNG or GIF images");
  const key = `avatars/${userId}/${randomUUID()}`;
  await deps.storage.put(key, image, { contentType });
  let previousKey: string | undefined;
  const user = await inTransaction(deps, async (t) => {
    const updated = await usersCollection.update(t.tx, userId, (doc) => {
      previousKey = doc.avatar?.key;
      return { ...doc, avatar: { key, contentType, sizeBytes: image.length, updatedAt: t.now().toISOString() } };
    });
    await invalidateCaches({ t, change: { kind: "user", userId } });
    return updated;
  });
  if (!user) {
    await deps.storage.delete(key);
    throw new AppError("NOT_FOUND", "No such user");
  }
  // The document now points at the new object; the old one is unreferenced and can go.
  if (previousKey) await deps.storage.delete(previousKey).catch((error) => deps.logger.warn({ err: error, key: previousKey }, "could not delete old avatar"));
  return { avatarUrl: `/api/v1/users/${userId}/avatar?v=${encodeURIComponent(user.doc.avatar!.updatedAt)}`, contentType, sizeBytes: image.length };
}

export async function getAvatar(options: { deps: Deps; userId: string }) {
  const { deps, userId } = options;
  const user = await usersCollection.get(deps.db, userId);
  if (!user?.doc.avatar) throw new AppError("NOT_FOUND", "This user has no avatar");
  const object = await deps.storage.get(user.doc.avatar.key);
  if (!object) throw new AppError("NOT_FOUND", "This user has no avatar");
  return { body: object.body, contentType: user.doc.avatar.contentType, sizeBytes: user.doc.avatar.sizeBytes };
}
