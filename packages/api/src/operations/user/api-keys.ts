import { z } from "@hono/zod-openapi";
import {
  API_KEY_EXPIRY_NOTICE_DAYS,
  apiKeyCreateSchema,
  apiKeySchema,
  createApiKey,
  createdApiKeySchema,
  listApiKeys,
  MAX_API_KEY_LIFETIME_DAYS,
  MAX_LIVE_API_KEYS,
  revokeApiKey,
} from "@meridian/domain/auth";
import { defineOperation } from "../define-operation";
import { conflict, errorResponses, opaqueIdParam, problemResponseFor } from "../responses";

const tags = ["User"];

export const apiKeyOperations = {
  apiKeys: defineOperation({
    operationId: "listApiKeys",
    access: "signed-in",
    tags,
    summary: "List my API keys",
    method: "get",
    path: "/api/v1/user/api-keys",
    status: 200,
    output: z.object({ items: z.array(apiKeySchema), nextCursor: z.null() }),
    description:
      `Every live (not revoked) key, newest first, whole: a user holds at most ${MAX_LIVE_API_KEYS} of them. ` +
      "Each item also carries (extension) `expiresAt` (null: never expires) and `expired`: a key past its expiry " +
      "authenticates nobody (401 as an unknown key) but stays listed, and counted toward the cap, until revoked.",
    outputDescription: "Live keys, expired ones included, newest first",
    responses: { 401: errorResponses[401] },
    handle: ({ ctx, actor }) => listApiKeys({ deps: ctx.deps, actor }),
  }),
  createApiKey: defineOperation({
    operationId: "createApiKey",
    access: "signed-in",
    tags,
    summary: "Create an API key",
    description:
      "The key is in this response only; Meridian keeps its hash. Send it as `Authorization: Bearer <key>`. " +
      `A user holds at most ${MAX_LIVE_API_KEYS} live (not revoked) keys: the next is refused with 409 CONFLICT until one is revoked. ` +
      "The body may also carry (extension) `expiresAt` (ISO 8601 date-time with a zone), which the response echoes " +
      "(null when absent or null: the key never expires). It must lie in the future and at most " +
      `${MAX_API_KEY_LIFETIME_DAYS} days ahead, otherwise 400 VALIDATION_FAILED with an \`errors[]\` entry for \`expiresAt\`. ` +
      "From that moment the key is refused with 401 like an unknown key, on HTTP and WebSocket alike; expired keys still count toward the cap until revoked. " +
      `The owner is emailed once, ${API_KEY_EXPIRY_NOTICE_DAYS} days before the key expires (one message listing each of their keys due then).`,
    method: "post",
    path: "/api/v1/user/api-keys",
    status: 201,
    body: apiKeyCreateSchema,
    output: createdApiKeySchema,
    outputDescription: "Created",
    responses: { ...errorResponses, 409: conflict(`CONFLICT: ${MAX_LIVE_API_KEYS} live keys already`) },
    handle: ({ ctx, actor, input }) => createApiKey({ deps: ctx.deps, actor, name: input.name, expiresAt: input.expiresAt }),
  }),
  revokeApiKey: defineOperation({
    operationId: "revokeApiKey",
    access: "signed-in",
    tags,
    summary: "Revoke an API key",
    method: "delete",
    path: "/api/v1/user/api-keys/{id}",
    status: 204,
    params: z.object({ id: opaqueIdParam }),
    outputDescription: "Revoked; the key stops working",
    responses: { 401: errorResponses[401], 403: errorResponses[403], 404: problemResponseFor("Not found (NOT_FOUND)") },
    handle: ({ ctx, actor, input }) => revokeApiKey({ deps: ctx.deps, actor, keyId: input.id }),
  }),
};
