import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { filesCollection, observationsCollection, tables, type FileDoc, type StoredDocument } from "@meridian/db";
import { asc, eq } from "drizzle-orm";
import type { UserActor } from "../actor";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { readBeforeIdle } from "../uploads/idle-timeout";
import { noControlCharacters } from "../users/schemas";
import { loadObservationAccess } from "./access";

const IMAGE_EXTENSIONS = /\.(fits?|fts|fz|xisf|tiff?|png|jpe?g|cr2|nef|raw)$/i;
/** A file's kind from its name and content type: an image (FITS, raw, TIFF, JPEG…) or other. */
export const fileKindOf = (filename: string, contentType: string): "image" | "other" =>
  contentType.startsWith("image/") || IMAGE_EXTENSIONS.test(filename) ? "image" : "other";
const isFileName = (name: string) => name.length >= 1 && name.length <= 255 && !/[/\\]/.test(name) && noControlCharacters.test(name);

export function presentFile(file: StoredDocument<FileDoc>) {
  const { doc } = file;
  return {
    id: file.id,
    observationId: doc.observationId,
    filename: doc.filename,
    sizeBytes: doc.sizeBytes,
    sha256: doc.sha256,
    contentType: doc.contentType,
    kind: doc.kind,
    previewOfId: doc.previewOfId,
    createdAt: file.createdAt.toISOString(),
  };
}

/** Why an upload's body ended early: the body's own reading failed (the client), not the store. */
class BodyError extends Error {}

/**
 * The upload's body as it arrives, with its size and SHA-256 counted on the way. Waiting longer
 * than `idleMs` for the client's next bytes ends it with 408 REQUEST_TIMEOUT; the timer runs only
 * while the client is waited on, never while the store takes a part.
 */
async function* measuredBody(body: WebReadableStream<Uint8Array>, limits: { maxBytes: number; idleMs: number }, onChunk: (chunk: Buffer) => void) {
  const reader = body.getReader();
  let total = 0;
  try {
    for (;;) {
      const next = await readBeforeIdle(reader, limits.idleMs).catch((error: unknown) => {
        throw error instanceof AppError ? error : new BodyError("The upload's body broke off", { cause: error });
      });
      if (next.done) return;
      total += next.value.byteLength;
      if (total > limits.maxBytes) throw new AppError("PAYLOAD_TOO_LARGE", `A file may be at most ${limits.maxBytes} bytes`);
      const chunk = Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
      onChunk(chunk);
      yield chunk;
    }
  } finally {
    // Ended early (timed out, too large, the store failed): stop taking the client's bytes.
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * An observatory's upload of one of its observation's files: streamed to object storage with
 * its size and SHA-256 computed on the way (never held whole in memory), then recorded. The
 * record is written only once the object is stored, and the object removed when anything fails
 * after it was; a multipart upload that fails is aborted (`storage.put`). So a failed upload
 * leaves neither, and its client sees an error; a stored one is answered 201.
 */
export async function uploadObservationFile(options: {
  deps: Deps;
  observatoryId: string;
  observationId: string;
  filename: string;
  previewOf?: string;
  contentType?: string;
  body: WebReadableStream<Uint8Array> | null;
}) {
  const { deps, observatoryId, observationId } = options;
  if (!isFileName(options.filename))
    throw new AppError("VALIDATION_FAILED", "filename must be 1 to 255 characters without slashes or control characters", {
      errors: [{ path: "filename", message: "Must be 1 to 255 characters without slashes or control characters" }],
    });
  const observation = await observationsCollection.get(deps.db, observationId);
  if (!observation || observation.doc.observatoryId !== observatoryId) throw new AppError("NOT_FOUND", "No such observation at this observatory");
  if (options.previewOf) {
    const original = await filesCollection.get(deps.db, options.previewOf);
    if (!original || original.doc.observationId !== observationId) throw new AppError("NOT_FOUND", "previewOf names no file of this observation");
  }
  if (!options.body) throw new AppError("VALIDATION_FAILED", "The file's bytes are the request body");
  const contentType = (options.contentType ?? "application/octet-stream").split(";")[0]!.trim().toLowerCase() || "application/octet-stream";
  const fileId = filesCollection.newId();
  const objectKey = `observations/${observationId}/${fileId}`;
  const hash = createHash("sha256");
  let sizeBytes = 0;
  const body = Readable.from(
    measuredBody(options.body, { maxBytes: deps.env.MAX_UPLOAD_BYTES, idleMs: deps.env.UPLOAD_IDLE_TIMEOUT_MS }, (chunk) => {
      sizeBytes += chunk.length;
      hash.update(chunk);
    }),
  );
  try {
    await deps.storage.put(objectKey, body, { contentType });
  } catch (error) {
    // The store may have given up before the body ended: stop reading it.
    body.destroy();
    await deps.storage.delete(objectKey).catch(() => undefined);
    if (error instanceof AppError) throw error;
    if (error instanceof BodyError) throw new AppError("VALIDATION_FAILED", "The upload did not complete; nothing was stored", { cause: error });
    throw new AppError("SERVICE_UNAVAILABLE", "Object storage did not take the file; nothing was stored", { cause: error });
  }
  try {
    const kind = options.previewOf ? "preview" : fileKindOf(options.filename, contentType);
    const file = await filesCollection.insert(
      deps.db,
      {
        observationId,
        observatoryId,
        filename: options.filename,
        sizeBytes,
        sha256: hash.digest("hex"),
        contentType,
        kind,
        previewOfId: options.previewOf ?? null,
        objectKey,
      },
      fileId,
    );
    return presentFile(file);
  } catch (error) {
    await deps.storage.delete(objectKey).catch(() => undefined);
    throw error;
  }
}

export async function listObservationFiles(options: { deps: Deps; actor: UserActor; observationId: string }) {
  await loadObservationAccess(options.deps.db, options.actor, options.observationId);
  const files = await filesCollection.findMany(options.deps.db, eq(tables.files.observationId, options.observationId), asc(tables.files.createdAt), 10_000);
  return { items: files.map(presentFile) };
}

/** The bytes of a file, for readers of its observation. */
export async function openObservationFile(options: { deps: Deps; actor: UserActor; fileId: string }) {
  const { deps, actor, fileId } = options;
  const file = await filesCollection.get(deps.db, fileId);
  if (!file) throw new AppError("NOT_FOUND", "No such file");
  try {
    await loadObservationAccess(deps.db, actor, file.doc.observationId);
  } catch (error) {
    if (error instanceof AppError && error.code === "NOT_FOUND") throw new AppError("NOT_FOUND", "No such file");
    throw error;
  }
  const object = await deps.storage.get(file.doc.objectKey);
  if (!object) throw new AppError("NOT_FOUND", "The file's bytes are missing from storage");
  return { file: presentFile(file), body: object.body, contentLength: object.contentLength ?? file.doc.sizeBytes };
}
