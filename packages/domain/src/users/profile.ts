import type { UserActor } from "../actor";
import { usersCollection, type StoredDocument, type UserDoc } from "@meridian/db";
import { invalidateCaches } from "../cache/request-caches";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { avatarPath } from "./present";
import type { ProfileUpdate } from "./schemas";

const presentProfile = (user: StoredDocument<UserDoc>) => ({
  name: user.doc.name,
  email: user.doc.email,
  avatarUrl: avatarPath(user.id, user.doc),
  notificationPreferences: user.doc.notificationPreferences,
  pushover: user.doc.pushover
    ? { configured: true, userKeyHint: user.doc.pushover.userKeyHint, devices: user.doc.pushover.devices }
    : { configured: false, userKeyHint: null, devices: [] },
});

/** The profile of the user authentication already loaded: no second read. */
export function getProfile(options: { user: StoredDocument<UserDoc> }) {
  return presentProfile(options.user);
}

export async function updateProfile(options: { deps: Deps; actor: UserActor; update: ProfileUpdate }) {
  const { deps, actor, update } = options;
  const userId = actor.id;
  const user = await deps.db.transaction(async (tx) => {
    const updated = await usersCollection.update(tx, userId, (doc) => ({
      ...doc,
      name: update.name ?? doc.name,
      notificationPreferences: { ...doc.notificationPreferences, ...update.notificationPreferences },
    }));
    await invalidateCaches(deps, tx, { kind: "user", userId });
    return updated;
  });
  if (!user) throw new AppError("NOT_FOUND", "No such user");
  return presentProfile(user);
}
