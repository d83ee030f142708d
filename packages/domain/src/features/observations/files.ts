import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { filesCollection, observationsCollection, tables, type Executor, type FileDoc, type StoredDocument } from "@meridian/db";
import { asc, count, eq } from "drizzle-orm";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { outOfSpaceError } from "../../platform/out-of-space";
import { readBeforeIdle } from "../../platform/uploads/idle-timeout";
import { noControlCharacters } from "../users";
import { deliveries } from "./delivery-door";
import { frames } from "./frame-door";
import { inTransaction } from "../../platform/transaction";
import { loadObservationAccess } from "./access";

const IMAGE_EXTENSIONS = /\.(fits?|fts|fz|xisf|tiff?|png|jpe?g|cr2|nef|raw)$/i;
/** A file's kind from its name and content type: an image (FITS, raw, TIFF, JPEG…) or other. */
export const fileKindOf = ({ filename, contentType }: { filename: string; contentType: string }): "image" | "other" =>
  contentType.startsWith("image/") || IMAGE_EXTENSIONS.test(filename) ? "image" : "other";
/** A file's name alone: no separators, nor `.` or `..`, which name folders on disk and in a ZIP's entries. */
const isFileName = (name: string) =>
  name.length >= 1 && name.length <= 255 && !/[/\\]/.test(name) && name !== "." && name !== ".." && noControlCharacters.test(name);

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
    deliveries: doc.deliveries ?? [],
    frame: presentFrame(doc.frame),
    createdAt: file.createdAt.toISOString(),
  };
}

/** A frame's analysis as the API shows it: without the id that ties it to its job, nor its solution's parity. */
function presentFrame(frame: FileDoc["frame"]) {
  if (!frame) return null;
  const { analysisId: _analysisId, mirrored: _mirrored, ...shown } = frame;
  return shown;
}

/**
 * Files (previews included) one observation may hold: the next upload is 409 CONFLICT, refused
 * before its bytes are taken when the count already says so, and a frame's analysis makes no
 * preview past it; the file list is then whole.
 */
export const MAX_OBSERVATION_FILES = 10_000;

/** What an upload the object store did not take (out of reach, or failing) is told to wait: a 503 is a refusal for now. */
const STORAGE_REFUSED_RETRY_AFTER_SECONDS = 5;

async function requireRoomForFile(options: { db: Executor; observationId: string }) {
  const { files } = tables;
  const [row] = await options.db.select({ count: count() }).from(files).where(eq(files.observationId, options.observationId));
  if ((row?.count ?? 0) >= MAX_OBSERVATION_FILES)
    throw new AppError("CONFLICT", `The observation holds ${MAX_OBSERVATION_FILES} files, the most one may; nothing was stored`);
}

const emptyFile = () =>
  new AppError("VALIDATION_FAILED", "The file is empty; nothing was stored", { errors: [{ path: "body", message: "Must hold at least one byte" }] });

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
      const next = await readBeforeIdle({ reader, idleMs: limits.idleMs }).catch((error: unknown) => {
        throw error instanceof AppError ? error : new BodyError("The upload's body broke off", { cause: error });
      });
      if (next.done) {
        // The integrity scan counts an empty file as a data-loss risk (the spec's empty entries): never store one.
        if (total === 0) throw emptyFile();
        return;
      }
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
    throw new AppError("VALIDATION_FAILED", "filename must be 1 to 255 characters without slashes or control characters, and not . or ..", {
      errors: [{ path: "filename", message: "Must be 1 to 255 characters without slashes or control characters, and not . or .." }],
    });
  const observation = await observationsCollection.get(deps.db, observationId);
  if (!observation || observation.doc.observatoryId !== observatoryId) throw new AppError("NOT_FOUND", "No such observation at this observatory");
  if (options.previewOf) {
    const original = await filesCollection.get(deps.db, options.previewOf);
    if (!original || original.doc.observationId !== observationId) throw new AppError("NOT_FOUND", "previewOf names no file of this observation");
  }
  if (!options.body) throw emptyFile();
  // Before a byte is streamed to storage; counted again under the observation's lock before the record.
  await requireRoomForFile({ db: deps.db, observationId });
  const contentType = (options.contentType ?? "application/octet-stream").split(";")[0]!.trim().toLowerCase() || "application/octet-stream";
  const fileId = filesCollection.newId();
  const objectKey = `observations/${observationId}/${fileId}`;
  const hash = createHash("sha256");
  let sizeBytes = 0;
  // The first card, kept on the way: a FITS file is a frame by its bytes, whatever its name.
  let firstCard = Buffer.alloc(0);
  const body = Readable.from(
    measuredBody(options.body, { maxBytes: deps.env.MAX_UPLOAD_BYTES, idleMs: deps.env.UPLOAD_IDLE_TIMEOUT_MS }, (chunk) => {
      if (firstCard.length < 80) firstCard = Buffer.concat([firstCard, chunk.subarray(0, 80 - firstCard.length)]);
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
    throw (
      outOfSpaceError({ error, what: "the file" }) ??
      new AppError("SERVICE_UNAVAILABLE", "Object storage did not take the file; nothing was stored", {
        retryAfterSeconds: STORAGE_REFUSED_RETRY_AFTER_SECONDS,
        cause: error,
      })
    );
  }
  try {
    const kind = options.previewOf ? "preview" : fileKindOf({ filename: options.filename, contentType });
    const destinationId = observation.doc.storageDestinationId;
    const frame = kind !== "preview" ? frames().frameOf(firstCard) : null;
    // The record and its jobs (copy, analysis) commit together: a file is never recorded without them queued.
    const file = await inTransaction(deps, async (t) => {
      // The observation's row, locked: two uploads that both passed the count above take turns here, so
      // none passes the cap beside another; an observation deleted meanwhile gets no record.
      if (!(await observationsCollection.get(t.tx, observationId, { forUpdate: true })))
        throw new AppError("NOT_FOUND", "No such observation at this observatory");
      await requireRoomForFile({ db: t.tx, observationId });
      const inserted = await filesCollection.insert(
        t.tx,
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
          ...(destinationId ? { deliveries: [deliveries().pending(destinationId)] } : {}),
          frame,
        },
        fileId,
      );
      if (destinationId) await deliveries().queue({ t, fileId, destinationId });
      if (frame) await frames().queueAnalysis({ t, fileId, analysisId: frame.analysisId });
      return inserted;
    });
    return presentFile(file);
  } catch (error) {
    await deps.storage.delete(objectKey).catch(() => undefined);
    throw error;
  }
}

/** How long a file list waits for storage to say which objects it holds before it lists the files without saying. */
const PRESENCE_TIMEOUT_MS = 5_000;

/**
 * The objects storage holds among these files', each key with its size: one listing of the
 * observation's prefix (a request per 1,000 objects), and a HEAD only for a record whose key lies
 * elsewhere. Null when storage does not answer in time: the list is then given without `missing`.
 */
export async function storedObjects(options: {
  deps: Deps;
  observationId: string;
  files: Array<StoredDocument<FileDoc>>;
}): Promise<Map<string, number> | null> {
  const { deps, observationId, files } = options;
  if (files.length === 0) return new Map();
  const prefix = `observations/${observationId}/`;
  const look = async () => {
    const keys = new Map<string, number>();
    for await (const page of deps.storage.list(prefix)) for (const object of page) keys.set(object.key, object.size);
    for (const file of files) {
      if (file.doc.objectKey.startsWith(prefix)) continue;
      const head = await deps.storage.head(file.doc.objectKey);
      if (head) keys.set(file.doc.objectKey, head.contentLength ?? file.doc.sizeBytes);
    }
    return keys;
  };
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([look(), new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), PRESENCE_TIMEOUT_MS)))]);
  } catch (error) {
    deps.logger.warn({ err: error, observationId }, "could not list an observation's objects");
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/** An observation's file records, oldest first. */
export const filesOf = ({ db, observationId }: { db: Executor; observationId: string }) =>
  filesCollection.findMany(db, eq(tables.files.observationId, observationId), asc(tables.files.createdAt), 10_000);

/**
 * An observation's files, each marked `missing` when storage no longer holds its bytes (so a page can say so instead of
 * offering a download), and the lost ones whose records a repair removed.
 */
export async function listObservationFiles(options: { deps: Deps; actor: UserActor; observationId: string }) {
  const { deps, observationId } = options;
  const { observation } = await loadObservationAccess({ db: deps.db, actor: options.actor, observationId });
  const files = await filesOf({ db: deps.db, observationId });
  const stored = await storedObjects({ deps, observationId, files });
  return {
    items: files.map((file) => ({ ...presentFile(file), ...(stored ? { missing: !stored.has(file.doc.objectKey) } : {}) })),
    lost: observation.doc.lostFiles ?? [],
  };
}

/**
 * The bytes of a file, for readers of its observation; `withWcs`: a solved frame's, with its
 * solution written into its header (frames' `withSolution`), 409 NOT_SOLVED for any other file.
 */
export async function openObservationFile(options: { deps: Deps; actor: UserActor; fileId: string; withWcs?: boolean }) {
  const { deps, actor, fileId } = options;
  const file = await filesCollection.get(deps.db, fileId);
  if (!file) throw new AppError("NOT_FOUND", "No such file");
  try {
    await loadObservationAccess({ db: deps.db, actor, observationId: file.doc.observationId });
  } catch (error) {
    if (error instanceof AppError && error.code === "NOT_FOUND") throw new AppError("NOT_FOUND", "No such file");
    throw error;
  }
  const { frame } = file.doc;
  const solution = frame?.solution ?? null;
  if (options.withWcs && !solution) {
    const why = !frame ? "is not a frame (a FITS image)" : `has no plate solution (${[frame.status, frame.solveFailure].filter(Boolean).join(", ")})`;
    throw new AppError("NOT_SOLVED", `${file.doc.filename} ${why}: there is no WCS to write into it`);
  }
  const object = await deps.storage.get(file.doc.objectKey);
  if (!object)
    throw new AppError(
      "FILE_MISSING",
      `The bytes of ${file.doc.filename} are missing from storage: the file record stays, but there is nothing to download. ` +
        "Its observatory can upload it again; a server administrator finds it in the integrity scan's storage check.",
    );
  const contentLength = object.contentLength ?? file.doc.sizeBytes;
  if (options.withWcs && solution)
    return {
      file: presentFile(file),
      ...(await frames().withSolution({
        body: object.body,
        contentLength,
        solution,
        mirrored: frame?.mirrored === true,
        observationId: file.doc.observationId,
      })),
    };
  return { file: presentFile(file), body: object.body, contentLength };
}
