import type { StoredDocument, UserDoc } from "@meridian/db";
import type { PublicUser } from "./schemas";

/** Where a user's avatar is served; the version changes with the image, so it may be cached for good. */
export const avatarPath = (user: { id: string; doc: UserDoc }) =>
  user.doc.avatar ? `/api/v1/users/${user.id}/avatar?v=${encodeURIComponent(user.doc.avatar.updatedAt)}` : null;

/**
 * Presented once per stored user object: a cached principal keeps its user for every request of
 * its session, and `GET /api/v1/auth/me` would otherwise build the same answer each time. A
 * changed user is a new object (documents are never changed in place), so it is never stale.
 */
const presented = new WeakMap<StoredDocument<UserDoc>, PublicUser>();

export function presentUser(user: StoredDocument<UserDoc>): PublicUser {
  let publicUser = presented.get(user);
  if (!publicUser) {
    publicUser = Object.freeze({
      id: user.id,
      email: user.doc.email,
      name: user.doc.name,
      roles: user.doc.roles,
      avatarUrl: avatarPath(user),
      createdAt: user.createdAt.toISOString(),
    });
    presented.set(user, publicUser);
  }
  return publicUser;
}

export const isServerAdmin = (user: { doc: UserDoc } | { roles: string[] }) => ("doc" in user ? user.doc.roles : user.roles).includes("serverAdmin");
