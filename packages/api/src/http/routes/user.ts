import { Readable } from "node:stream";
import { createRoute, z } from "@hono/zod-openapi";
import {
  apiKeyCreateSchema,
  apiKeySchema,
  createApiKey,
  createdApiKeySchema,
  getAvatar,
  getProfile,
  listApiKeys,
  MAX_AVATAR_BYTES,
  opaqueIdSchema,
  profileSchema,
  profileUpdateSchema,
  revokeApiKey,
  setAvatar,
  updateProfile,
} from "@meridian/domain";
import { requirePrincipal } from "../auth-guard";
import { createRouter } from "../env";
import { bearerSecurity, errorResponses, jsonBody, jsonResponse, problemResponseFor } from "../openapi-shared";
import { readLimitedBody } from "../read-limited-body";

const tags = ["User"];
const idParam = z.object({ id: opaqueIdSchema });
const notFound = problemResponseFor("Not found (NOT_FOUND)");

export const userRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/api/v1/user/api-keys",
      tags,
      summary: "List my API keys",
      security: bearerSecurity,
      responses: { 200: jsonResponse(z.object({ items: z.array(apiKeySchema), nextCursor: z.null() }), "Active keys, newest first"), 401: errorResponses[401] },
    }),
    async (c) => {
      const ctx = c.get("ctx");
      return c.json(await listApiKeys({ deps: ctx.deps, userId: requirePrincipal(ctx).user.id }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/api/v1/user/api-keys",
      tags,
      summary: "Create an API key",
      description: "The key is in this response only; Meridian keeps its hash. Send it as `Authorization: Bearer <key>`.",
      security: bearerSecurity,
      request: { body: jsonBody(apiKeyCreateSchema) },
      responses: { 201: jsonResponse(createdApiKeySchema, "Created"), ...errorResponses },
    }),
    async (c) => {
      const ctx = c.get("ctx");
      const { name } = c.req.valid("json");
      return c.json(await createApiKey({ deps: ctx.deps, userId: requirePrincipal(ctx).user.id, name }), 201);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/api/v1/user/api-keys/{id}",
      tags,
      summary: "Revoke an API key",
      security: bearerSecurity,
      request: { params: idParam },
      responses: { 204: { description: "Revoked; the key stops working" }, 401: errorResponses[401], 403: errorResponses[403], 404: notFound },
    }),
    async (c) => {
      const ctx = c.get("ctx");
      await revokeApiKey({ deps: ctx.deps, userId: requirePrincipal(ctx).user.id, keyId: c.req.valid("param").id });
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/api/v1/user/profile",
      tags,
      summary: "My profile",
      security: bearerSecurity,
      responses: { 200: jsonResponse(profileSchema, "Profile"), 401: errorResponses[401] },
    }),
    async (c) => {
      const ctx = c.get("ctx");
      return c.json(getProfile({ user: requirePrincipal(ctx).user }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/api/v1/user/profile",
      tags,
      summary: "Update my profile (partial)",
      description: "Fields left out keep their values; `notificationPreferences` may also be partial. Unknown fields are refused.",
      security: bearerSecurity,
      request: { body: jsonBody(profileUpdateSchema) },
      responses: { 200: jsonResponse(profileSchema, "Updated profile"), ...errorResponses },
    }),
    async (c) => {
      const ctx = c.get("ctx");
      return c.json(await updateProfile({ deps: ctx.deps, userId: requirePrincipal(ctx).user.id, update: c.req.valid("json") }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/api/v1/user/avatar",
      tags,
      summary: "Upload my avatar",
      description: "Raw image body. JPG, PNG or GIF recognised by content (not by Content-Type), at most 2 MB.",
      security: bearerSecurity,
      request: {
        body: {
          required: true,
          content: {
            "image/png": { schema: z.string().openapi({ format: "binary" }) },
            "image/jpeg": { schema: z.string().openapi({ format: "binary" }) },
            "image/gif": { schema: z.string().openapi({ format: "binary" }) },
            "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) },
          },
        },
      },
      responses: {
        200: jsonResponse(z.object({ avatarUrl: z.string(), contentType: z.string(), sizeBytes: z.number().int() }), "Stored"),
        401: errorResponses[401],
        403: errorResponses[403],
        413: problemResponseFor("Larger than 2 MB (PAYLOAD_TOO_LARGE)"),
        415: problemResponseFor("Not a JPG, PNG or GIF (UNSUPPORTED_MEDIA_TYPE)"),
      },
    }),
    async (c) => {
      const ctx = c.get("ctx");
      const principal = requirePrincipal(ctx);
      const image = await readLimitedBody(c.req.raw, MAX_AVATAR_BYTES);
      return c.json(await setAvatar({ deps: ctx.deps, userId: principal.user.id, image }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/api/v1/users/{id}/avatar",
      tags,
      summary: "A user's avatar",
      description: "Any signed-in user may read avatars. The image is streamed with its content type.",
      security: bearerSecurity,
      request: { params: idParam },
      responses: {
        200: { description: "The image", content: { "image/*": { schema: z.string().openapi({ format: "binary" }) } } },
        401: errorResponses[401],
        404: notFound,
      },
    }),
    async (c) => {
      const ctx = c.get("ctx");
      requirePrincipal(ctx);
      const avatar = await getAvatar({ deps: ctx.deps, userId: c.req.valid("param").id });
      return new Response(Readable.toWeb(avatar.body) as ReadableStream, {
        status: 200,
        headers: {
          "content-type": avatar.contentType,
          "content-length": String(avatar.sizeBytes),
          "cache-control": "private, max-age=300",
          "x-content-type-options": "nosniff",
        },
      }) as never;
    },
  );
