import type { UserActor } from "../../platform/actor";
import { usersCollection, type StoredDocument, type UserDoc } from "@meridian/db";
import { invalidateCaches } from "../../platform/cache/request-caches";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { presentPushover } from "./pushover-view";
import { avatarPath } from "./present";
import type { ProfileUpdate } from "./schemas";
import { inTransaction } from "../../platform/transaction";

const presentProfile = (deps: Pick<Deps, "env">, user: StoredDocument<UserDoc>) => ({
  name: user.doc.name,
  email: user.doc.email,
  avatarUrl: avatarPath(user),
  notificationPreferences: user.doc.notificationPreferences,
  pushover: presentPushover({ deps, pushover: user.doc.pushover ?? null }),
  ...(user.doc.timeDisplay ? { timeDisplay: user.doc.timeDisplay } : {}),
});

/** The profile of the user authentication already loaded: no second read. */
export function getProfile(options: { deps: Pick<Deps, "env">; user: StoredDocument<UserDoc> }) {
  return presentProfile(options.deps, options.user);
}

export async function updateProfile(options: { deps: Deps; actor: UserActor; update: ProfileUpdate }) {
  const { deps, actor, update } = options;
  const userId = actor.id;
  const user = await inTransaction(deps, async (t) => {
    const updated = await usersCollection.update(t.tx, userId, (doc) => ({
      ...doc,
      name: update.name ?? doc.name,
      notificationPreferences: { ...doc.notificationPreferences, ...update.notificationPreferences },
      ...(update.timeDisplay ? { timeDisplay: update.timeDisplay } : {}),
    }));
    await invalidateCaches({ t, change: { kind: "user", userId } });
    return updated;
  });
  if (!user) throw new AppError("NOT_FOUND", "No such user");
  return presentProfile(deps, user);
}
