import type { StoredDocument, UserDoc } from "@meridian/db";
import type { PublicUser } from "./schemas";

export const avatarPath = (userId: string, doc: UserDoc) =>
  doc.avatar ? `/api/v1/users/${userId}/avatar?v=${encodeURIComponent(doc.avatar.updatedAt)}` : null;

export function presentUser(user: StoredDocument<UserDoc>): PublicUser {
  return {
    id: user.id,
    email: user.doc.email,
    name: user.doc.name,
    roles: user.doc.roles,
    avatarUrl: avatarPath(user.id, user.doc),
    createdAt: user.createdAt.toISOString(),
  };
}

export const isServerAdmin = (user: { doc: UserDoc } | { roles: string[] }) => ("doc" in user ? user.doc.roles : user.roles).includes("serverAdmin");
