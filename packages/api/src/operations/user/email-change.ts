import { cancelEmailChange, emailChangeRequestSchema, getPendingEmailChange, pendingEmailChangeSchema, requestEmailChange } from "@meridian/domain/accounts";
import { defineOperation } from "../define-operation";
import { errorResponses, problemResponseFor } from "../responses";

const tags = ["User"];

/** The caller changes their own sign-in address, confirmed from the new mailbox (extension to docs/api-contract.md). */
export const emailChangeOperations = {
  requestEmailChange: defineOperation({
    operationId: "requestEmailChange",
    access: "signed-in",
    tags,
    summary: "Ask to change my email address",
    description:
      "Extension to docs/api-contract.md. Needs the current password: wrong, it is 403 INVALID_CREDENTIALS as for " +
      "`PUT /api/v1/user/password`, and counts with that operation's wrong passwords (429 after LOGIN_FAILURES_PER_EMAIL in " +
      "15 minutes); every attempt also counts against LOGIN_ATTEMPTS_PER_ACCOUNT_PER_MINUTE and LOGIN_ATTEMPTS_PER_IP_PER_MINUTE " +
      "with password changes. The address the account has now, in any case, is 400 VALIDATION_FAILED at `email`; another " +
      "account's (compared case-insensitively) is 409 EMAIL_TAKEN. Nothing changes yet: the new address gets a single-use " +
      "link valid for one hour (`/app/confirm-email?token=…`, on `PUBLIC_URL` or else the address the request reached) and the " +
      "current address a notice that nothing changes unless that link is opened. A newer request replaces a pending one. " +
      "Requests past the password check are limited as reset requests are: PASSWORD_RESETS_PER_EMAIL_PER_HOUR per account " +
      "and PASSWORD_RESETS_PER_IP_PER_HOUR per client address, beyond either 429 RATE_LIMITED with Retry-After.",
    method: "post",
    path: "/api/v1/user/email",
    status: 202,
    body: emailChangeRequestSchema,
    outputDescription: "Accepted; the link is on its way to the new address",
    responses: {
      400: errorResponses[400],
      401: errorResponses[401],
      403: problemResponseFor("The current password is wrong (INVALID_CREDENTIALS), or a cross-origin cookie request (CROSS_ORIGIN_REQUEST)"),
      409: problemResponseFor("Another account uses this email address (EMAIL_TAKEN)"),
      429: errorResponses[429],
    },
    handle: ({ ctx, actor, input }) => requestEmailChange({ deps: ctx.deps, actor, input, client: ctx.client, requestOrigin: ctx.linkOrigin }),
  }),
  pendingEmailChange: defineOperation({
    operationId: "getPendingEmailChange",
    access: "signed-in",
    tags,
    summary: "My pending email change",
    description:
      "Extension to docs/api-contract.md. The address a change is waiting to be confirmed for and when its link expires; " +
      "both null when none is pending or its link has expired.",
    method: "get",
    path: "/api/v1/user/email",
    status: 200,
    output: pendingEmailChangeSchema,
    outputDescription: "The pending change, if any",
    responses: { 401: errorResponses[401] },
    handle: ({ ctx, actor }) => getPendingEmailChange({ deps: ctx.deps, actor }),
  }),
  cancelEmailChange: defineOperation({
    operationId: "cancelEmailChange",
    access: "signed-in",
    tags,
    summary: "Cancel my pending email change",
    description: "Extension to docs/api-contract.md. The link sent to the new address stops working; 204 also when nothing was pending.",
    method: "delete",
    path: "/api/v1/user/email",
    status: 204,
    outputDescription: "Cancelled",
    responses: { 401: errorResponses[401], 403: errorResponses[403] },
    handle: ({ ctx, actor }) => cancelEmailChange({ deps: ctx.deps, actor }),
  }),
};
