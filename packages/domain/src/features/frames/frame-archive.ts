import { type FileDoc, type StoredDocument, storedFromRow } from "@meridian/db";
import { sql } from "drizzle-orm";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { AppError, fieldError } from "../../platform/errors";
import { readableBy, zipOfStoredFiles } from "../observations";
import { viewableObservatoryIds } from "../permissions";

/** The most bytes of frames one archive holds (16 GiB): a selection weighing more is refused before anything is sent. */
const MAX_ARCHIVE_BYTES = 16 * 1024 ** 3;
// HEADs at once while checking which frames storage still holds.
const PRESENCE_CONCURRENCY = 8;

/** The frames among `fileIds` the caller may read, in the order asked for. */
async function readableFrames(options: { deps: Deps; actor: UserActor; fileIds: string[] }) {
  const { deps, actor, fileIds } = options;
  const readable = actor.isServerAdmin ? sql`true` : readableBy({ userId: actor.id, viewableObservatories: viewableObservatoryIds(actor.id) });
  const rows = await deps.db.execute<{ id: string; doc: FileDoc; created_at: string; updated_at: string }>(sql`
    select f.id, f.doc, f.created_at, f.updated_at
      from files f join observations o on o.id = f.observation_id
     where f.id in ${fileIds} and f.frame_status is not null and ${readable}`);
  const byId = new Map(rows.map((row) => [row.id, storedFromRow(row)]));
  const refused = fileIds.flatMap((id, at) => (byId.has(id) ? [] : [at]));
  if (refused.length > 0)
    throw new AppError("NOT_FOUND", `${refused.length} of the files asked for are not frames the caller may read`, {
      errors: refused.map((at) => fieldError({ path: ["fileIds", at], predicate: "is not a frame you may read" })),
    });
  return fileIds.map((id) => byId.get(id)!);
}

/** The sizes of the frames' objects storage holds, by key (one HEAD each, a few at a time). */
async function presentSizes(deps: Deps, frames: Array<StoredDocument<FileDoc>>) {
  const sizes = new Map<string, number>();
  const queue = [...frames];
  const worker = async () => {
    for (let frame = queue.shift(); frame; frame = queue.shift()) {
      const head = await deps.storage.head(frame.doc.objectKey);
      if (head) sizes.set(frame.doc.objectKey, head.contentLength ?? frame.doc.sizeBytes);
    }
  };
  try {
    await Promise.all(Array.from({ length: PRESENCE_CONCURRENCY }, worker));
  } catch (error) {
    throw new AppError("SERVICE_UNAVAILABLE", "Object storage did not say which frames it holds; try again shortly", { cause: error });
  }
  return sizes;
}

const missingNote = (frames: Array<StoredDocument<FileDoc>>) =>
  "These frames are recorded, but object storage no longer holds their bytes, so they are not in this archive:\r\n\r\n" +
  frames.map((frame) => `${frame.doc.filename}\t${frame.doc.sizeBytes} bytes\tsha256 ${frame.doc.sha256}\r\n`).join("");

/**
 * `POST /frames/archive`: the chosen frames as one ZIP, made while it is read (yazl, entries
 * stored uncompressed; each frame fetched from storage only when the archive reaches it), so the
 * process holds a few chunks whatever the selection weighs. Every id is checked first: one the
 * caller may not read, or that is no frame, refuses the whole request before a byte is sent.
 */
export async function openFrameArchive(options: { deps: Deps; actor: UserActor; fileIds: string[] }) {
  const { deps } = options;
  const frames = await readableFrames(options);
  const total = frames.reduce((sum, frame) => sum + frame.doc.sizeBytes, 0);
  if (total > MAX_ARCHIVE_BYTES)
    throw new AppError("VALIDATION_FAILED", `The frames chosen weigh ${total} bytes; an archive holds at most ${MAX_ARCHIVE_BYTES}`, {
      errors: [fieldError({ path: "fileIds", predicate: `must name frames weighing at most ${MAX_ARCHIVE_BYTES} bytes together` })],
    });
  const sizes = await presentSizes(deps, frames);
  const { body, size } = await zipOfStoredFiles({ deps, files: frames, sizes, missingNote });
  const day = deps.now().toISOString().slice(0, 10);
  return { filename: `frames-${day}.zip`, body, size };
}
