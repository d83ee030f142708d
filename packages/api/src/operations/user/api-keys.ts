import { z } from "@hono/zod-openapi";
import { apiKeyCreateSchema, apiKeySchema, createApiKey, createdApiKeySchema, listApiKeys, MAX_LIVE_API_KEYS, revokeApiKey } from "@meridian/domain";
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
    description: `Every live (not revoked) key, newest first, whole: a user holds at most ${MAX_LIVE_API_KEYS} of them.`,
    outputDescription: "Active keys, newest first",
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
      `A user holds at most ${MAX_LIVE_API_KEYS} live (not revoked) keys: the next is refused with 409 CONFLICT until one is revoked.`,
    method: "post",
    path: "/api/v1/user/api-keys",
    status: 201,
    body: apiKeyCreateSchema,
    output: createdApiKeySchema,
    outputDescription: "Created",
    responses: { ...errorResponses, 409: conflict(`CONFLICT: ${MAX_LIVE_API_KEYS} live keys already`) },
    handle: ({ ctx, actor, input }) => createApiKey({ deps: ctx.deps, actor, name: input.name }),
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
