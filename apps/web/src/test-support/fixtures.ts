import type { Answer } from "./api";

/** The signed-in user as `auth.me` answers it, for a page that asks who is there; `fields` override. */
export const signedIn = (fields: Answer<"auth.me"> = {}): Answer<"auth.me"> => ({
  id: "usr_me",
  name: "Ada Admin",
  email: "ada@example.com",
  roles: [],
  avatarUrl: null,
  ...fields,
});
