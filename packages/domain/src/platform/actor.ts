import type { StoredDocument, UserDoc } from "@meridian/db";
import type { Principal } from "./principal";

/**
 * Who acts. Every domain function that checks permissions or records who did something takes
 * one `actor`: a signed-in user, a connected observatory (its key), or the system itself
 * (crons, the CLI, start-up), so history and audit name the same three kinds everywhere.
 */
export type Actor = UserActor | ObservatoryActor | SystemActor;

export interface UserActor {
  kind: "user";
  id: string;
  name: string;
  email: string;
  isServerAdmin: boolean;
  /** The session that authenticated the request, when it was a session (not an API key). */
  sessionId?: string;
}

export interface ObservatoryActor {
  kind: "observatory";
  id: string;
}

export interface SystemActor {
  kind: "system";
  /** What acted: `cron`, `cli`, `startup`. */
  id: string;
}

export const actorFromUser = ({ user, sessionId }: { user: StoredDocument<UserDoc>; sessionId?: string }): UserActor => ({
  kind: "user",
  id: user.id,
  name: user.doc.name,
  email: user.doc.email,
  isServerAdmin: user.doc.roles.includes("serverAdmin"),
  ...(sessionId ? { sessionId } : {}),
});

/** The user behind a request's credentials; the session is named only when one authenticated it. */
export const actorOfPrincipal = (principal: Principal): UserActor =>
  actorFromUser({ user: principal.user, sessionId: principal.via === "session" ? principal.credentialId : undefined });
