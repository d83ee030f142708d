import { createRoute } from "@hono/zod-openapi";
import {
  authResultSchema,
  deleteSessionByToken,
  login,
  loginInputSchema,
  presentUser,
  signup,
  signupInputSchema,
  userSchema,
} from "@meridian/domain";
import { requirePrincipal } from "../auth-guard";
import { createRouter } from "../env";
import { bearerSecurity, errorResponses, jsonBody, jsonResponse, problemResponseFor } from "../openapi-shared";
import { clearSessionCookie, setSessionCookie } from "../session-cookie";

const tags = ["Auth"];

export const authRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/api/v1/auth/signup",
      tags,
      summary: "Create an account",
      description: "Creates a user and a session. The session token is returned and also set as the HttpOnly `session` cookie.",
      request: { body: jsonBody(signupInputSchema) },
      responses: {
        201: jsonResponse(authResultSchema, "Account created"),
        400: errorResponses[400],
        403: problemResponseFor("Signup disabled (SIGNUP_DISABLED)"),
        409: problemResponseFor("Email already registered (EMAIL_TAKEN)"),
        429: errorResponses[429],
      },
    }),
    async (c) => {
      const ctx = c.get("ctx");
      const result = await signup({ deps: ctx.deps, input: c.req.valid("json"), client: ctx.client });
      setSessionCookie(c, ctx, result.token);
      return c.json(result, 201);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/api/v1/auth/login",
      tags,
      summary: "Sign in",
      description: "Returns a session token and sets the `session` cookie. Failed attempts are rate-limited per email and per client address.",
      request: { body: jsonBody(loginInputSchema) },
      responses: {
        200: jsonResponse(authResultSchema, "Signed in"),
        400: errorResponses[400],
        401: problemResponseFor("Wrong email or password (INVALID_CREDENTIALS)"),
        403: problemResponseFor("The account was disabled by a server administrator (ACCOUNT_DISABLED); said only after the password was verified"),
        429: errorResponses[429],
      },
    }),
    async (c) => {
      const ctx = c.get("ctx");
      const result = await login({ deps: ctx.deps, input: c.req.valid("json"), client: ctx.client });
      setSessionCookie(c, ctx, result.token);
      return c.json(result, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/api/v1/auth/logout",
      tags,
      summary: "Sign out",
      description: "Ends the session that authenticated the request; its token stops working. With an API key nothing is revoked (use DELETE /api/v1/user/api-keys/{id}).",
      security: bearerSecurity,
      responses: { 204: { description: "Signed out" }, 401: errorResponses[401], 403: errorResponses[403] },
    }),
    async (c) => {
      const ctx = c.get("ctx");
      const principal = requirePrincipal(ctx);
      if (principal.via === "session" && ctx.token) await deleteSessionByToken({ deps: ctx.deps, token: ctx.token });
      clearSessionCookie(c, ctx);
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/api/v1/auth/me",
      tags,
      summary: "The signed-in user",
      security: bearerSecurity,
      responses: { 200: jsonResponse(userSchema, "The current user"), 401: errorResponses[401] },
    }),
    (c) => c.json(presentUser(requirePrincipal(c.get("ctx")).user), 200),
  );

