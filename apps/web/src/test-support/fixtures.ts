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

/** Two people the membership pages' tests sign in as and add to one another's things. */
export const ALICE = { id: "usr_alice", name: "Alice Archer", email: "alice@example.com" };
export const BOB = { id: "usr_bob", name: "Bob Bright", email: "bob@example.com" };

/** An organization as lists name it; a test adds `myRole` and `myPermissions` as its page needs. */
export const ORION = { id: "org_orion", name: "Orion Society", shortName: "orion", type: "research_institute" as const };
