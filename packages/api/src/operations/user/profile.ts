import { Readable } from "node:stream";
import { z } from "@hono/zod-openapi";
import { getAvatar, getProfile, MAX_AVATAR_BYTES, profileSchema, profileUpdateSchema, setAvatar, updateProfile } from "@meridian/domain/users";
import { readLimitedBody } from "../../http/read-limited-body";
import { defineOperation, Reply } from "../define-operation";
import { errorResponses, opaqueIdParam, problemResponseFor } from "../responses";

const tags = ["User"];
const binary = { schema: z.string().openapi({ format: "binary" }) };

export const profileOperations = {
  profile: defineOperation({
    operationId: "getProfile",
    access: "signed-in",
    tags,
    summary: "My profile",
    description:
      "`pushover.available` and `pushover.notice` (added fields) say whether this server can send Pushover messages: " +
      "without a Pushover application token (`PUSH_APP_TOKEN`) it sends nothing, even to a user who saved a key.",
    method: "get",
    path: "/api/v1/user/profile",
    status: 200,
    output: profileSchema,
    outputDescription: "Profile",
    responses: { 401: errorResponses[401] },
    handle: ({ ctx, principal }) => getProfile({ deps: ctx.deps, user: principal.user }),
  }),
  updateProfile: defineOperation({
    operationId: "updateProfile",
    access: "signed-in",
    tags,
    summary: "Update my profile (partial)",
    description: "Fields left out keep their values; `notificationPreferences` may also be partial. Unknown fields are refused.",
    method: "put",
    path: "/api/v1/user/profile",
    status: 200,
    body: profileUpdateSchema,
    output: profileSchema,
    outputDescription: "Updated profile",
    responses: errorResponses,
    handle: ({ ctx, actor, input }) => updateProfile({ deps: ctx.deps, actor, update: input }),
  }),
  setAvatar: defineOperation({
    operationId: "setAvatar",
    access: "signed-in",
    tags,
    summary: "Upload my avatar",
    description: "Raw image body. JPG, PNG or GIF recognised by content (not by Content-Type), at most 2 MB.",
    method: "put",
    path: "/api/v1/user/avatar",
    status: 200,
    requestBody: { required: true, content: { "image/png": binary, "image/jpeg": binary, "image/gif": binary, "application/octet-stream": binary } },
    readBody: (request, ctx) => readLimitedBody(request.raw, { maxBytes: MAX_AVATAR_BYTES, idleMs: ctx.deps.env.UPLOAD_IDLE_TIMEOUT_MS }),
    bodyKey: "image",
    output: z.object({ avatarUrl: z.string(), contentType: z.string(), sizeBytes: z.number().int() }),
    outputDescription: "Stored",
    responses: {
      401: errorResponses[401],
      403: errorResponses[403],
      408: problemResponseFor("No bytes for UPLOAD_IDLE_TIMEOUT_MS before the body was complete (REQUEST_TIMEOUT)"),
      413: problemResponseFor("Larger than 2 MB (PAYLOAD_TOO_LARGE)"),
      415: problemResponseFor("Not a JPG, PNG or GIF (UNSUPPORTED_MEDIA_TYPE)"),
    },
    trpc: false,
    handle: ({ ctx, actor, input }) => setAvatar({ deps: ctx.deps, actor, image: (input as unknown as { image: Buffer }).image }),
  }),
  getAvatar: defineOperation({
    operationId: "getUserAvatar",
    access: "signed-in",
    tags,
    summary: "A user's avatar",
    description: "Any signed-in user may read avatars. The image is streamed with its content type.",
    method: "get",
    path: "/api/v1/users/{id}/avatar",
    status: 200,
    params: z.object({ id: opaqueIdParam }),
    outputDescription: "The image",
    responses: {
      200: { description: "The image", content: { "image/*": binary } },
      401: errorResponses[401],
      404: problemResponseFor("Not found (NOT_FOUND)"),
    },
    trpc: false,
    handle: async ({ ctx, input }) => {
      const avatar = await getAvatar({ deps: ctx.deps, userId: input.id });
      return new Reply(200, Readable.toWeb(avatar.body) as ReadableStream, {
        "content-type": avatar.contentType,
        "content-length": String(avatar.sizeBytes),
        "cache-control": "private, max-age=300",
        "x-content-type-options": "nosniff",
      });
    },
  }),
};
