import { createRoute, z } from "@hono/zod-openapi";
import {
  adminUserListQuerySchema,
  adminUserListSchema,
  adminUserSchema,
  adminUserUpdateSchema,
  changePassword,
  changePasswordSchema,
  confirmPasswordReset,
  listMySessions,
  listUsersForAdmin,
  opaqueIdSchema,
  passwordResetConfirmSchema,
  passwordResetRequestSchema,
  requestPasswordReset,
  revokeMySession,
  revokeOtherSessions,
  sessionListSchema,
  updateUserByAdmin,
} from "@meridian/domain";
import { requirePrincipal, requireServerAdmin } from "../auth-guard";
import { actorOf } from "../caller";
import { createRouter } from "../env";
import { bearerSecurity, errorResponses, jsonBody, jsonResponse, problemResponseFor } from "../openapi-shared";

const idParam = z.object({ id: opaqueIdSchema });
const notFound = problemResponseFor("Not found (NOT_FOUND)");

/** Password, sessions and password reset for the signed-in user; account administration for server admins. */
export const accountRoutes = createRouter()
  .openapi(
    createRoute({
      method: "put",
      path: "/api/v1/user/password",
      tags: ["User"],
      summary: "Change my password",
      description:
        "Needs the current password. Every other session of the account ends (the caller's stays); API keys keep working. Wrong current passwords count like failed sign-ins (429 after as many).",
      security: bearerSecurity,
      request: { body: jsonBody(changePasswordSchema) },
      responses: {
        204: { description: "Changed" },
        400: errorResponses[400],
        401: errorResponses[401],
        403: problemResponseFor("The current password is wrong (INVALID_CREDENTIALS), or a cross-origin cookie request (CROSS_ORIGIN_REQUEST)"),
        429: errorResponses[429],
      },
    }),
    async (c) => {
      const ctx = c.get("ctx");
      await changePassword({ deps: ctx.deps, principal: requirePrincipal(ctx), input: c.req.valid("json") });
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/api/v1/auth/password-reset",
      tags: ["Auth"],
      summary: "Email a password reset link",
      description:
        "Always 202, whether or not an account has this email, so the answer reveals nothing. An existing, enabled account gets an email with a single-use link valid for one hour (`/app/reset-password?token=…`) on `PUBLIC_URL`, or without it on the address the request reached (never the Host header); a newer request makes older links useless. Rate limited per email and per client address.",
      request: { body: jsonBody(passwordResetRequestSchema) },
      responses: { 202: { description: "Accepted; an email follows if the account exists" }, 400: errorResponses[400], 429: errorResponses[429] },
    }),
    async (c) => {
      const ctx = c.get("ctx");
      await requestPasswordReset({ deps: ctx.deps, email: c.req.valid("json").email, client: ctx.client, appUrl: ctx.linkOrigin });
      return c.body(null, 202);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/api/v1/auth/password-reset/confirm",
      tags: ["Auth"],
      summary: "Set a new password from a reset link",
      description: "Every session of the account ends. A used, expired or unknown token is 400 INVALID_TOKEN.",
      request: { body: jsonBody(passwordResetConfirmSchema) },
      responses: { 204: { description: "Password set" }, 400: problemResponseFor("Invalid input (VALIDATION_FAILED) or token (INVALID_TOKEN)") },
    }),
    async (c) => {
      const ctx = c.get("ctx");
      const input = c.req.valid("json");
      await confirmPasswordReset({ deps: ctx.deps, token: input.token, newPassword: input.newPassword });
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/api/v1/user/sessions",
      tags: ["User"],
      summary: "My sessions",
      description: "Live sessions of the caller's account, newest first; `current` marks the one making this request.",
      security: bearerSecurity,
      responses: { 200: jsonResponse(sessionListSchema, "Sessions"), 401: errorResponses[401] },
    }),
    async (c) => {
      const ctx = c.get("ctx");
      return c.json(await listMySessions({ deps: ctx.deps, principal: requirePrincipal(ctx) }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/api/v1/user/sessions/revoke-others",
      tags: ["User"],
      summary: "Sign out every other session",
      description: "Every session of the account but the caller's stops working at once (with an API key: every session).",
      security: bearerSecurity,
      responses: { 204: { description: "Signed out" }, 401: errorResponses[401], 403: errorResponses[403] },
    }),
    async (c) => {
      const ctx = c.get("ctx");
      await revokeOtherSessions({ deps: ctx.deps, principal: requirePrincipal(ctx) });
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/api/v1/user/sessions/{id}",
      tags: ["User"],
      summary: "Sign out one of my sessions",
      description: "That session stops working at once; it may be the caller's own. Another user's session is 404.",
      security: bearerSecurity,
      request: { params: idParam },
      responses: { 204: { description: "Signed out" }, 400: errorResponses[400], 401: errorResponses[401], 403: errorResponses[403], 404: notFound },
    }),
    async (c) => {
      const ctx = c.get("ctx");
      await revokeMySession({ deps: ctx.deps, principal: requirePrincipal(ctx), sessionId: c.req.valid("param").id });
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/api/v1/admin/users",
      tags: ["Administration"],
      summary: "Every account (server admins)",
      description: "Oldest first; `q` matches part of the email or name, case-insensitively. Cursor paging.",
      security: bearerSecurity,
      request: { query: adminUserListQuerySchema },
      responses: { 200: jsonResponse(adminUserListSchema, "Accounts"), 400: errorResponses[400], 401: errorResponses[401], 403: problemResponseFor("Server administrators only (FORBIDDEN)") },
    }),
    async (c) => {
      const ctx = c.get("ctx");
      requireServerAdmin(ctx);
      const query = c.req.valid("query");
      return c.json(await listUsersForAdmin({ deps: ctx.deps, q: query.q, limit: query.limit, cursor: query.cursor }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/api/v1/admin/users/{id}",
      tags: ["Administration"],
      summary: "Disable or enable an account, grant or revoke serverAdmin (server admins)",
      description:
        "Disabling ends the account's sessions and makes its API keys fail at once; its sign-in answers 403 ACCOUNT_DISABLED. Nothing may leave the server without an enabled server admin (409 LAST_SERVER_ADMIN), and an admin cannot disable their own account (403). Each change is written to the audit log.",
      security: bearerSecurity,
      request: { params: idParam, body: jsonBody(adminUserUpdateSchema) },
      responses: {
        200: jsonResponse(adminUserSchema, "The account"),
        400: errorResponses[400],
        401: errorResponses[401],
        403: problemResponseFor("Server administrators only, or disabling oneself (FORBIDDEN)"),
        404: notFound,
        409: problemResponseFor("It would leave no enabled server administrator (LAST_SERVER_ADMIN)"),
      },
    }),
    async (c) => {
      const ctx = c.get("ctx");
      requireServerAdmin(ctx);
      const { actor, deps } = actorOf(c);
      return c.json(await updateUserByAdmin({ deps, actor, userId: c.req.valid("param").id, input: c.req.valid("json") }), 200);
    },
  );
