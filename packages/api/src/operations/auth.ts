import {
  confirmEmailChange,
  confirmPasswordReset,
  emailChangeConfirmSchema,
  passwordResetConfirmSchema,
  passwordResetRequestSchema,
  requestPasswordReset,
} from "@meridian/domain/accounts";
import { authResultSchema, deleteSessionByToken, login, loginInputSchema, MAX_LIVE_SESSIONS, signup, signupInputSchema } from "@meridian/domain/auth";
import { presentUser, userSchema } from "@meridian/domain/users";
import { defineOperation } from "./define-operation";
import { invitationLinkGone, invitationNotFound } from "./invitations";
import { errorResponses, problemResponseFor } from "./responses";

const tags = ["Auth"];

export const authOperations = {
  signup: defineOperation({
    operationId: "signUp",
    access: "public",
    tags,
    summary: "Create an account",
    description:
      "Creates a user and a session. The session token is returned and also set as the HttpOnly `session` cookie. " +
      "When SIGNUP_ENABLED is false, only an address invited by a pending invitation may sign up, with the link's `invitationToken`. " +
      "One client address makes at most SIGNUPS_PER_IP_PER_HOUR signups an hour (default 20), counted before the password is hashed; " +
      "beyond that 429 RATE_LIMITED with Retry-After.",
    method: "post",
    path: "/api/v1/auth/signup",
    status: 201,
    body: signupInputSchema,
    output: authResultSchema,
    outputDescription: "Account created",
    responses: {
      400: errorResponses[400],
      403: problemResponseFor(
        "Signup disabled and no invitation given (SIGNUP_DISABLED), or the invitation is for another address (INVITATION_EMAIL_MISMATCH)",
      ),
      404: invitationNotFound,
      409: problemResponseFor("Email already registered (EMAIL_TAKEN)"),
      410: invitationLinkGone,
      429: errorResponses[429],
    },
    handle: async ({ ctx, input }) => {
      const result = await signup({ deps: ctx.deps, input, client: ctx.client });
      ctx.setSessionToken(result.token);
      return result;
    },
  }),
  login: defineOperation({
    operationId: "logIn",
    allowedDuringMaintenance: true,
    access: "public",
    tags,
    summary: "Sign in",
    description:
      "Returns a session token and sets the `session` cookie. Failed attempts are rate-limited per email and per client address " +
      "(LOGIN_FAILURES_PER_EMAIL, default 10, and LOGIN_FAILURES_PER_IP, default 50, per 15 minutes). Every attempt, successful or not, " +
      "also counts against LOGIN_ATTEMPTS_PER_ACCOUNT_PER_MINUTE for the email (default 10) and LOGIN_ATTEMPTS_PER_IP_PER_MINUTE for the client " +
      "address (default 30), since each costs a password hash: beyond any of these 429 RATE_LIMITED with Retry-After, even for the right " +
      "password, before the password is checked. " +
      `An account keeps at most ${MAX_LIVE_SESSIONS} sessions: this one ends the oldest beyond that; expired sessions are removed.`,
    method: "post",
    path: "/api/v1/auth/login",
    status: 200,
    body: loginInputSchema,
    output: authResultSchema,
    outputDescription: "Signed in",
    responses: {
      400: errorResponses[400],
      401: problemResponseFor("Wrong email or password (INVALID_CREDENTIALS)"),
      403: problemResponseFor("The account was disabled by a server administrator (ACCOUNT_DISABLED); said only after the password was verified"),
      429: errorResponses[429],
    },
    handle: async ({ ctx, input }) => {
      const result = await login({ deps: ctx.deps, input, client: ctx.client });
      ctx.setSessionToken(result.token);
      return result;
    },
  }),
  logout: defineOperation({
    operationId: "logOut",
    allowedDuringMaintenance: true,
    access: "signed-in",
    tags,
    summary: "Sign out",
    description:
      "Ends the session that authenticated the request; its token stops working. With an API key nothing is revoked (use DELETE /api/v1/user/api-keys/{id}).",
    method: "post",
    path: "/api/v1/auth/logout",
    status: 204,
    outputDescription: "Signed out",
    responses: { 401: errorResponses[401], 403: errorResponses[403] },
    handle: async ({ ctx, principal }) => {
      if (principal.via === "session" && ctx.token) await deleteSessionByToken({ deps: ctx.deps, token: ctx.token });
      ctx.setSessionToken(null);
    },
  }),
  /** REST only: the SPA asks `auth.me` (below), which answers null when signed out instead of 401. */
  getMe: defineOperation({
    operationId: "getCurrentUser",
    access: "signed-in",
    tags,
    summary: "The signed-in user",
    method: "get",
    path: "/api/v1/auth/me",
    status: 200,
    output: userSchema,
    outputDescription: "The current user",
    responses: { 401: errorResponses[401] },
    trpc: false,
    handle: ({ principal }) => presentUser(principal.user),
  }),
  requestPasswordReset: defineOperation({
    operationId: "requestPasswordReset",
    access: "public",
    tags,
    summary: "Email a password reset link",
    description:
      "Always 202, whether or not an account has this email, so the answer reveals nothing. An " +
      "existing, enabled account gets an email with a single-use link valid for one hour " +
      "(`/app/reset-password?token=…`) on `PUBLIC_URL`, or without it on the address the request " +
      "reached (never the Host header); a newer request makes older links useless. Rate limited " +
      "per email and per client address.",
    method: "post",
    path: "/api/v1/auth/password-reset",
    status: 202,
    body: passwordResetRequestSchema,
    outputDescription: "Accepted; an email follows if the account exists",
    responses: { 400: errorResponses[400], 429: errorResponses[429] },
    handle: ({ ctx, input }) => requestPasswordReset({ deps: ctx.deps, email: input.email, client: ctx.client, requestOrigin: ctx.linkOrigin }),
  }),
  confirmPasswordReset: defineOperation({
    operationId: "confirmPasswordReset",
    access: "public",
    tags,
    summary: "Set a new password from a reset link",
    description:
      "Every session of the account ends. A used, expired or unknown token is 400 INVALID_TOKEN. A working link counts, before the new " +
      "password is hashed, against LOGIN_ATTEMPTS_PER_ACCOUNT_PER_MINUTE for its account (default 10) and LOGIN_ATTEMPTS_PER_IP_PER_MINUTE " +
      "for the client address (default 30); beyond either 429 RATE_LIMITED with Retry-After.",
    method: "post",
    path: "/api/v1/auth/password-reset/confirm",
    status: 204,
    body: passwordResetConfirmSchema,
    outputDescription: "Password set",
    responses: { 400: problemResponseFor("Invalid input (VALIDATION_FAILED) or token (INVALID_TOKEN)"), 429: errorResponses[429] },
    handle: ({ ctx, input }) => confirmPasswordReset({ deps: ctx.deps, token: input.token, newPassword: input.newPassword, client: ctx.client }),
  }),
  /** Public, beside the reset link: the emailed link may be opened in a browser signed in as nobody, or as someone else. */
  confirmEmailChange: defineOperation({
    operationId: "confirmEmailChange",
    access: "public",
    tags: ["User"],
    summary: "Confirm a new email address from its link",
    description:
      "Extension to docs/api-contract.md. Needs no sign-in: the token mailed to the new address is the credential. The account's " +
      "sign-in address becomes the new one; a used, expired or unknown token is 400 INVALID_TOKEN; an address another account " +
      "took meanwhile is 409 EMAIL_TAKEN (the link then keeps working until it expires). The old address is told, with the new " +
      "one masked; password reset links mailed to the old address stop working; sessions and API keys stay valid.",
    method: "post",
    path: "/api/v1/user/email/confirm",
    status: 200,
    body: emailChangeConfirmSchema,
    output: userSchema,
    outputDescription: "The account with its new address",
    responses: {
      400: problemResponseFor("Invalid input (VALIDATION_FAILED) or token (INVALID_TOKEN)"),
      409: problemResponseFor("Another account took this email address meanwhile (EMAIL_TAKEN)"),
    },
    handle: ({ ctx, input }) => confirmEmailChange({ deps: ctx.deps, token: input.token }),
  }),
};
