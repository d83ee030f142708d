import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { z } from "@hono/zod-openapi";
import { retryFileDelivery, testStorageDestination } from "@meridian/domain/delivery";
import { analyseFileAgain } from "@meridian/domain/frames";
import {
  fileListSchema,
  fileSchema,
  listObservationFiles,
  MAX_OBSERVATION_FILES,
  openObservationFile,
  uploadObservationFile,
} from "@meridian/domain/observations";
import { defineOperation, Reply } from "./define-operation";
import { authedErrors, conflict, idParam, problemResponseFor } from "./responses";

const tags = ["Observations"];
const binary = { schema: z.string().openapi({ format: "binary" }) };

interface Upload {
  stream: WebReadableStream<Uint8Array> | null;
  contentType: string | undefined;
}

/** `attachment` with the name in both forms (RFC 6266): ASCII for old clients, UTF-8 for the rest. */
export const contentDisposition = (filename: string) =>
  `attachment; filename="${filename.replace(/[^\x20-\x7e]|["\\]/g, "_")}"; filename*=UTF-8''${encodeURIComponent(filename)}`;

/** An observation's files: uploaded by its observatory's key, read by the observation's readers. */
export const observationFileOperations = {
  uploadFile: defineOperation({
    operationId: "uploadObservationFile",
    access: "observatory",
    tags,
    summary: "Upload a file of an observation (the observatory's own key)",
    description:
      "Raw body, streamed to object storage with its size and SHA-256 computed on the way; the content type is kept. " +
      "`previewOf` links a preview image to a file of the same observation. A failed upload leaves neither a record nor an object " +
      "(nor an unfinished multipart upload), and its client gets an error; a stored file is answered 201. " +
      "At most MAX_UPLOAD_BYTES (default 4 GiB); an empty body is refused (400 VALIDATION_FAILED), since the integrity scan " +
      "counts an empty file as a data-loss risk. " +
      "Object storage with no room left for the file (a full disk) is 507 INSUFFICIENT_STORAGE with Retry-After; nothing was stored. " +
      "A client that sends nothing for UPLOAD_IDLE_TIMEOUT_MS (default 60 s) before its body is complete is answered 408 REQUEST_TIMEOUT " +
      "and the connection closes. The body is the Content-Length bytes: bytes sent after them are not part of the file, and the " +
      "connection closes after the answer. " +
      `An observation holds at most ${MAX_OBSERVATION_FILES} files, previews included: the next is 409 CONFLICT, refused before its ` +
      "bytes are read when the observation is full already, and nothing is stored. " +
      "A file whose first card is `SIMPLE  =  T` (FITS, whatever its name; not a preview) is answered with `frame.status: queued`, " +
      "and its analysis (header, stars, plate solve, grade) is queued with its record: `frame` in the file's later reads holds the outcome. " +
      "A frame that has no preview when its analysis ends (none uploaded with `previewOf` it by then) gets one made by the server: " +
      "a file of `kind: preview`, `previewOfId` the frame, named after it (`<name>.preview.png`), a greyscale PNG at most 1024 pixels " +
      "on its long side, binned and stretched (asinh) from just below the sky background to the brightest star, the FITS first row at the bottom.",
    method: "post",
    path: "/observations/{id}/files",
    status: 201,
    params: z.object({ id: idParam }),
    query: z.object({ filename: z.string().min(1).max(255), previewOf: idParam.optional() }),
    requestBody: { required: true, content: { "application/octet-stream": binary, "image/*": binary } },
    readBody: async (request) => ({ stream: request.raw.body as WebReadableStream<Uint8Array> | null, contentType: request.header("content-type") }),
    bodyKey: "upload",
    output: fileSchema,
    outputDescription: "Stored",
    responses: {
      ...authedErrors,
      408: problemResponseFor(
        "No bytes for UPLOAD_IDLE_TIMEOUT_MS before the body was complete, or less than MIN_BODY_BYTES_PER_SECOND on average " +
          "after BODY_RATE_GRACE_MS (REQUEST_TIMEOUT); nothing stored",
      ),
      409: conflict(`CONFLICT: the observation holds ${MAX_OBSERVATION_FILES} files already; nothing stored`),
      413: problemResponseFor("Larger than MAX_UPLOAD_BYTES (PAYLOAD_TOO_LARGE)"),
      503: problemResponseFor("Object storage did not take the file (SERVICE_UNAVAILABLE), see Retry-After; nothing stored"),
      507: problemResponseFor("Object storage has no room left for the file (INSUFFICIENT_STORAGE), see Retry-After; nothing stored"),
    },
    trpc: false,
    handle: ({ ctx, observatory, input }) => {
      const upload = (input as unknown as { upload: Upload }).upload;
      return uploadObservationFile({
        deps: ctx.deps,
        observatoryId: observatory.observatoryId,
        observationId: input.id,
        filename: input.filename,
        previewOf: input.previewOf,
        contentType: upload.contentType,
        body: upload.stream,
      });
    },
  }),
  files: defineOperation({
    operationId: "listObservationFiles",
    access: "signed-in",
    tags,
    summary: "An observation's files (its readers)",
    method: "get",
    path: "/observations/{id}/files",
    status: 200,
    params: z.object({ id: idParam }),
    output: fileListSchema,
    outputDescription: "Files, oldest first",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => listObservationFiles({ deps: ctx.deps, actor, observationId: input.id }),
  }),
  downloadFile: defineOperation({
    operationId: "downloadFile",
    access: "signed-in",
    tags,
    summary: "A file's bytes (readers of its observation)",
    description:
      "Streamed with its content type, Content-Length and Content-Disposition. A file whose record stays but whose bytes are gone " +
      "from storage answers 404 FILE_MISSING (file lists mark such files `missing`). " +
      "`?wcs=1`, for a frame with a `solution`: the same FITS with the solution in the image's header (the primary HDU's, or the " +
      "first image extension's behind an empty primary): `CTYPE1/2` `RA---TAN`/`DEC--TAN`, `EQUINOX 2000`, `CRVAL1/2` the solution's " +
      "ra/dec at `CRPIX1/2` the image's centre pixel ((NAXISn + 1) / 2), the `CD1_1`…`CD2_2` matrix of `pixelScaleArcsec` and " +
      "`rotationDeg` (up, +y, is rotationDeg east of north; east to the left when north is up, or to the right for a frame whose " +
      "solve found it mirrored, a bottom-up readout say), " +
      "and `MERIDOBS`, the observation's id. The header's own WCS cards (CTYPE, CRVAL, CRPIX, CDELT, CROTA, CUNIT, CD, PC, PV, " +
      "the SIP A/B/AP/BP terms, EQUINOX, EPOCH, RADESYS, LONPOLE, LATPOLE, WCSAXES) are replaced and every other card is kept in " +
      "its order; the header may grow by a block; every data byte is sent unchanged. 409 NOT_SOLVED for a file that is not a " +
      "frame or has no solution. `?wcs=0` or no `wcs` is the plain download.",
    method: "get",
    path: "/files/{id}/download",
    status: 200,
    params: z.object({ id: idParam }),
    query: z.object({ wcs: z.enum(["0", "1"]).optional() }),
    outputDescription: "The bytes",
    responses: {
      ...authedErrors,
      200: { description: "The bytes", content: { "application/octet-stream": binary } },
      404: problemResponseFor("No such file, or not visible to the caller (NOT_FOUND); its bytes are missing from storage (FILE_MISSING)"),
      409: conflict("NOT_SOLVED: `?wcs=1` for a file that is not a solved frame"),
      503: problemResponseFor("The file storage could not be reached (SERVICE_UNAVAILABLE); try again after Retry-After"),
    },
    trpc: false,
    handle: async ({ ctx, actor, input }) => {
      const { file, body, contentLength } = await openObservationFile({ deps: ctx.deps, actor, fileId: input.id, withWcs: input.wcs === "1" });
      return new Reply(200, Readable.toWeb(body) as ReadableStream, {
        "content-type": file.contentType,
        "content-length": String(contentLength),
        "content-disposition": contentDisposition(file.filename),
        "x-content-type-options": "nosniff",
        "cache-control": "private, no-store",
      });
    },
  }),
  retryDelivery: defineOperation({
    operationId: "retryFileDelivery",
    access: "signed-in",
    tags,
    summary: "Deliver a file to its observation's storage destination again (owner or can_operate)",
    description:
      "Starts the delivery over: `pending` with no attempts, queued at once (a waiting attempt is replaced). Answers the file with its deliveries. " +
      "404 when the file has no delivery to that destination.",
    method: "post",
    path: "/files/{id}/deliveries/{destinationId}/retry",
    status: 202,
    params: z.object({ id: idParam, destinationId: idParam }),
    output: fileSchema,
    outputDescription: "Queued",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => retryFileDelivery({ deps: ctx.deps, actor, fileId: input.id, destinationId: input.destinationId }),
  }),
  analyseFile: defineOperation({
    operationId: "analyseFile",
    access: "signed-in",
    tags,
    summary: "Analyse a frame again (owner or can_operate)",
    description:
      "After a star catalog was installed, say: the frame goes back to `frame.status: queued` and its analysis (header, stars, " +
      "plate solve, grade) is queued again; a waiting analysis of the same frame is replaced, and one under way writes nothing. " +
      "Answers the file. A file that is not a frame (`frame: null`: not a FITS image, or a preview) is 409 NOT_A_FRAME. " +
      "Readers of the observation who are neither its owner nor operators of its observatory get 403; anyone else 404.",
    method: "post",
    path: "/files/{id}/analyse",
    status: 202,
    params: z.object({ id: idParam }),
    output: fileSchema,
    outputDescription: "Queued",
    responses: { ...authedErrors, 409: conflict("NOT_A_FRAME: the file is not a frame") },
    handle: ({ ctx, actor, input }) => analyseFileAgain({ deps: ctx.deps, actor, fileId: input.id }),
  }),
  testDestination: defineOperation({
    operationId: "testExternalStorage",
    access: "signed-in",
    tags: ["Organizations"],
    summary: "Check an external storage destination: write and remove a small probe file (can_manage_storage)",
    description:
      "Writes `.meridian-destination-test` at the destination's top (bucket prefix, Dropbox folder, Drive folder) and removes it. " +
      "`ok: false` with `error` in words when the destination refused or could not be reached; secrets never appear in it.",
    method: "post",
    path: "/organizations/{id}/external-storage/{destinationId}/test",
    status: 200,
    params: z.object({ id: idParam, destinationId: idParam }),
    output: z.object({ ok: z.boolean(), error: z.string().optional() }).meta({ id: "DestinationTestResult" }),
    outputDescription: "The probe's outcome",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => testStorageDestination({ deps: ctx.deps, actor, organizationId: input.id, destinationId: input.destinationId }),
  }),
};
