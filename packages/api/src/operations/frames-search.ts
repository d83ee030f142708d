import { z } from "@hono/zod-openapi";
import {
  frameArchiveRequestSchema,
  framePageSchema,
  frameSearchFields,
  MAX_ARCHIVE_FRAMES,
  MAX_CONE_RADIUS_DEG,
  openFrameArchive,
  searchFrames,
} from "@meridian/domain/frames";
import { defineOperation, Reply } from "./define-operation";
import { contentDisposition } from "./observation-files";
import { authedErrors, pageQuery, problemResponseFor } from "./responses";
import { nodeStreamBody } from "./streamed-body";

const tags = ["Frames"];
const searchQuery = pageQuery.extend(frameSearchFields);

/** Frames found across observations: by position on the sky and the usual filters, and taken away as one ZIP (tRPC `frames.*`). */
export const frameOperations = {
  search: defineOperation({
    operationId: "searchFrames",
    access: "signed-in",
    tags,
    summary: "Frames the caller may read, found by where they point and by filters",
    description:
      "Frames (files with a `frame`) of observations the caller may read: their owner, their project's members and whoever can " +
      "view their observatory (server admins read all). `ra`, `dec` and `radius` (J2000 degrees; `radius` at most " +
      `${MAX_CONE_RADIUS_DEG}) go together, and a partial set is 400 VALIDATION_FAILED naming each missing one: with them, only ` +
      "solved frames whose centre lies within `radius` of the point (great-circle distance), nearest first, ties by id. " +
      "Without them, every frame (queued, analysed or failed), newest upload first, ties by id. The other filters combine " +
      "with either: `filter` (FILTER, any case), `from`/`to` (DATE-OBS, read as UTC; a frame without one is left out when " +
      "either is given), `grade`, `observatoryId` (the observatory whose key uploaded it) and `projectId`. Keyset pages: " +
      "`nextCursor` holds the last frame's place (its distance and id in a cone), so frames added between two pages neither " +
      "repeat nor push others out; a cursor is good only for the same query.",
    method: "get",
    path: "/frames",
    status: 200,
    query: searchQuery,
    trpcInputOptional: true,
    output: framePageSchema,
    outputDescription: "A page of frames",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => searchFrames({ deps: ctx.deps, actor, filter: input, limit: input.limit ?? 50, cursor: input.cursor }),
  }),
  archive: defineOperation({
    operationId: "downloadFrames",
    access: "signed-in",
    tags,
    summary: "Chosen frames as one ZIP, streamed (readers of each frame's observation)",
    description:
      `\`fileIds\`: 1 to ${MAX_ARCHIVE_FRAMES} frames, each once. Every id is checked before a byte is sent: one that names no ` +
      "frame the caller may read (unknown, not a frame, or of an observation the caller may not read) makes the answer 404 " +
      "NOT_FOUND, its place in `errors` (`fileIds.N`). Frames weighing more than 16 GiB together are 400 VALIDATION_FAILED. " +
      "Each frame under its file name (a repeated name gets ` (2)` before its extension), in the order asked for, stored " +
      "uncompressed and fetched from object storage only as the archive reaches it; ZIP64 past 4 GiB; Content-Length is the " +
      "archive's exact size. Frames whose bytes storage no longer holds are left out and listed in a MISSING.txt inside the " +
      "archive. A frame that cannot be read while the archive is sent ends it early, so the client sees it cut short. " +
      "A POST (the contract is silent) because a selection of 200 ids does not fit a URL.",
    method: "post",
    path: "/frames/archive",
    status: 200,
    body: frameArchiveRequestSchema,
    outputDescription: "The ZIP",
    responses: {
      ...authedErrors,
      200: { description: "The ZIP", content: { "application/zip": { schema: z.string().openapi({ format: "binary" }) } } },
      404: problemResponseFor("A file id names no frame the caller may read (NOT_FOUND); `errors` names each"),
      503: problemResponseFor("Object storage did not say which frames it holds (SERVICE_UNAVAILABLE)"),
    },
    trpc: false,
    handle: async ({ ctx, actor, input }) => {
      const archive = await openFrameArchive({ deps: ctx.deps, actor, fileIds: input.fileIds });
      return new Reply(200, nodeStreamBody(archive.body), {
        "content-type": "application/zip",
        ...(archive.size === undefined ? {} : { "content-length": String(archive.size) }),
        "content-disposition": contentDisposition(archive.filename),
        "x-content-type-options": "nosniff",
        "cache-control": "private, no-store",
      });
    },
  }),
};
