import { z } from "@hono/zod-openapi";
import { changePassword, changePasswordSchema, listMySessions, revokeMySession, revokeOtherSessions, sessionListSchema } from "@meridian/domain/accounts";
import { MAX_LIVE_SESSIONS } from "@meridian/domain/auth";
import { opaqueIdSchema } from "@meridian/domain/users";
import { defineOperation } from "../define-operation";
import { errorResponses, problemResponseFor } from "../responses";

const tags = ["User"];

export const sessionOperations = {
  changePassword: defineOperation({
    operationId: "changePassword",
    access: "signed-in",
    tags,
    summary: "Change my password",
    description:
      "Needs the current password. Every other session of the account ends (the caller's stays); " +
      "API keys keep working. Wrong current passwords count like failed sign-ins (429 after as " +
      "many). Every attempt, right or wrong, also counts against LOGIN_ATTEMPTS_PER_ACCOUNT_PER_MINUTE for the account " +
      "(default 10) and LOGIN_ATTEMPTS_PER_IP_PER_MINUTE for the client address (default 30), since each costs password " +
      "hashes: beyond either 429 RATE_LIMITED with Retry-After, before the current password is checked.",
    method: "put",
    path: "/api/v1/user/password",
    status: 204,
    body: changePasswordSchema,
    outputDescription: "Changed",
    responses: {
      400: errorResponses[400],
      401: errorResponses[401],
      403: problemResponseFor("The current password is wrong (INVALID_CREDENTIALS), or a cross-origin cookie request (CROSS_ORIGIN_REQUEST)"),
      429: errorResponses[429],
    },
    handle: ({ ctx, actor, input }) => changePassword({ deps: ctx.deps, actor, input, client: ctx.client }),
  }),
  sessions: defineOperation({
    operationId: "listSessions",
    access: "signed-in",
    tags,
    summary: "My sessions",
    description:
      "Live sessions of the caller's account, newest first, all of them; `current` marks the one making this request. An account keeps at most " +
      `${MAX_LIVE_SESSIONS} sessions: a sign-in beyond that ends the oldest.`,
    method: "get",
    path: "/api/v1/user/sessions",
    status: 200,
    output: sessionListSchema,
    outputDescription: "Sessions",
    responses: { 401: errorResponses[401] },
    handle: ({ ctx, actor }) => listMySessions({ deps: ctx.deps, actor }),
  }),
  revokeOtherSessions: defineOperation({
    operationId: "revokeOtherSessions",
    access: "signed-in",
    tags,
    summary: "Sign out every other session",
    description: "Every session of the account but the caller's stops working at once (with an API key: every session).",
    method: "post",
    path: "/api/v1/user/sessions/revoke-others",
    status: 204,
    outputDescription: "Signed out",
    responses: { 401: errorResponses[401], 403: errorResponses[403] },
    handle: ({ ctx, actor }) => revokeOtherSessions({ deps: ctx.deps, actor }),
  }),
  revokeSession: defineOperation({
    operationId: "revokeSession",
    access: "signed-in",
    tags,
    summary: "Sign out one of my sessions",
    description: "That session stops working at once; it may be the caller's own. Another user's session is 404.",
    method: "delete",
    path: "/api/v1/user/sessions/{id}",
    status: 204,
    params: z.object({ id: opaqueIdSchema }),
    outputDescription: "Signed out",
    responses: { 400: errorResponses[400], 401: errorResponses[401], 403: errorResponses[403], 404: problemResponseFor("Not found (NOT_FOUND)") },
    handle: ({ ctx, actor, input }) => revokeMySession({ deps: ctx.deps, actor, sessionId: input.id }),
  }),
};
