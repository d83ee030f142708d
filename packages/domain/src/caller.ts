import type { StoredDocument, UserDoc } from "@meridian/db";

/** Who is acting: what every permission check needs to know about the signed-in user. */
export interface Caller {
  id: string;
  name: string;
  email: string;
  isServerAdmin: boolean;
}

export const callerFromUser = (user: StoredDocument<UserDoc>): Caller => ({
  id: user.id,
  name: user.doc.name,
  email: user.doc.email,
  isServerAdmin: user.doc.roles.includes("serverAdmin"),
});
