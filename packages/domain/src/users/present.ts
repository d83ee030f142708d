import type { StoredDocument, UserDoc } from "@meridian/db";
import type { PublicUser } from "./schemas";

/** Where a user's avatar is served; the version changes with the image, so it may be cached for good. */
export const avatarPath = (user: { id: string; doc: UserDoc }) =>
  user.doc.avatar ? `/api/v1/users/${user.id}/avatar?v=${encodeURIComponent(user.doc.avatar.updatedAt)}` : null;

export function presentUser(user: StoredDocument<UserDoc>): PublicUser {
  return {
    id: user.id,
    email: user.doc.email,
    name: user.doc.name,
    roles: user.doc.roles,
    avatarUrl: avatarPath(user),
    createdAt: user.createdAt.toISOString(),
  };
}

export const isServerAdmin = (user: { doc: UserDoc } | { roles: string[] }) => ("doc" in user ? user.doc.roles : user.roles).includes("serverAdmin");
