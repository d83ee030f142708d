import { createHash } from "node:crypto";
import { Readable, Transform } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { filesCollection, observationsCollection, tables, type FileDoc, type StoredDocument } from "@meridian/db";
import { asc, eq } from "drizzle-orm";
import type { UserActor } from "../actor";
import type { Deps } from "../deps";
import { AppError } from "../errors";
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

/**
 * An observatory's upload of one of its observation's files: streamed to object storage with
 * its size and SHA-256 computed on the way (never held whole in memory), then recorded. The
 * record is written only once the object is stored, and the object is removed when anything
 * fails after it was, so a failed upload leaves neither.
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
  const maxBytes = deps.env.MAX_UPLOAD_BYTES;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      sizeBytes += chunk.length;
      if (sizeBytes > maxBytes) return callback(new AppError("PAYLOAD_TOO_LARGE", `A file may be at most ${maxBytes} bytes`));
      hash.update(chunk);
      callback(null, chunk);
    },
  });
  const source = Readable.fromWeb(options.body);
  source.on("error", (error) => measure.destroy(error));
  const stored = source.pipe(measure);
  try {
    await deps.storage.put(objectKey, stored, { contentType });
  } catch (error) {
    await deps.storage.delete(objectKey).catch(() => undefined);
    if (error instanceof AppError) throw error;
    // The client went away or the store failed: nothing was recorded.
    throw new AppError("VALIDATION_FAILED", "The upload did not complete", { cause: error });
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
