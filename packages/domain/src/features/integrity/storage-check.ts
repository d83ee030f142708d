import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { StorageCallUnsupported, type Executor, type FileDoc, type IncompleteUpload, type IntegrityIssueDoc, type ObjectStorage } from "@meridian/db";
import { sql } from "drizzle-orm";
import { STALE_UPLOAD_AGE_MS, staleUploads } from "../../platform/storage/stale-uploads";

type StorageIssue = Omit<IntegrityIssueDoc, "scanId">;
const PAGE = 1000;

type FileRow = { id: string; doc: FileDoc; object_key: string; updated_at: string };

/** One page of file records after `after`, in object-key order ("C" collation: the byte order S3 lists keys in). */
export const filesByKey = ({ db, after, limit }: { db: Executor; after: { key: string; id: string } | null; limit: number }): Promise<FileRow[]> =>
  db.execute<FileRow>(sql`
    select id, doc, object_key, updated_at from files
     ${after ? sql`where (object_key collate "C", id) > (${after.key} collate "C", ${after.id})` : sql``}
     order by object_key collate "C", id limit ${limit}`);

async function* recordsByKey(db: Executor) {
  let after: { key: string; id: string } | null = null;
  for (;;) {
    const rows = await filesByKey({ db, after, limit: PAGE });
    if (rows.length === 0) return;
    yield* rows;
    after = { key: rows.at(-1)!.object_key, id: rows.at(-1)!.id };
  }
}

async function* objectsByKey(storage: ObjectStorage) {
  for await (const page of storage.list("observations/")) yield* page;
}

/** One INCOMPLETE_UPLOAD issue lists at most this many uploads to abort; the next scan finds the rest. */
const LISTED_UPLOADS = 1000;
const INCOMPLETE_UPLOADS_DOCUMENT = "incomplete-uploads";

/**
 * A part of the storage check left out because the store answered 501 NotImplemented to the call
 * it needs (s3rver without ListMultipartUploads, some gateways): one info issue naming the call,
 * and the scan goes on with every other check.
 */
const partialStorageCheck = ({ refused, leftOut }: { refused: StorageCallUnsupported; leftOut: string }): StorageIssue => ({
  severity: "info",
  type: "file",
  collection: "storage",
  documentId: refused.call,
  code: "STORAGE_CHECK_PARTIAL",
  message: `The storage does not support ${refused.call} (it answered 501 NotImplemented), so ${leftOut} was left out; every other check ran`,
  autoFixable: false,
  fix: null,
  nextStep: `Nothing is wrong with the data: ${leftOut} needs storage that supports ${refused.call} (AWS S3, MinIO and the embedded store do).`,
  status: "open",
  documentUpdatedAt: null,
});

/** The bytes an upload's parts hold (undefined once it is gone), or the refusal of a store that lacks ListParts. */
async function heldBytes(storage: ObjectStorage, upload: IncompleteUpload): Promise<number | undefined | StorageCallUnsupported> {
  try {
    return await storage.uploadedBytes(upload);
  } catch (error) {
    if (error instanceof StorageCallUnsupported) return error;
    throw error;
  }
}

/**
 * Multipart uploads begun more than a day before `now` and neither completed nor aborted: left
 * by processes stopped mid-upload, their parts take space and make no object. One issue with
 * their count and the bytes their parts hold; repaired by aborting them (as the daily
 * `abort_stale_uploads` job does). A store that cannot list them (or size their parts) gives a
 * STORAGE_CHECK_PARTIAL issue instead (or beside it).
 */
async function* incompleteUploadFindings({ storage, now }: { storage: ObjectStorage; now: Date }): AsyncGenerator<StorageIssue> {
  const listed: Array<{ abortUpload: string; uploadId: string; initiated: string | null; bytes: number | null }> = [];
  let count = 0;
  let bytes = 0;
  let unsized: StorageCallUnsupported | undefined;
  try {
    for await (const upload of staleUploads({ storage, cutoff: new Date(now.getTime() - STALE_UPLOAD_AGE_MS) })) {
      count += 1;
      if (listed.length === LISTED_UPLOADS) continue;
      const held = unsized ? unsized : await heldBytes(storage, upload);
      if (held instanceof StorageCallUnsupported) unsized = held;
      else bytes += held ?? 0;
      listed.push({
        abortUpload: upload.key,
        uploadId: upload.uploadId,
        initiated: upload.initiated?.toISOString() ?? null,
        bytes: typeof held === "number" ? held : null,
      });
    }
  } catch (error) {
    if (!(error instanceof StorageCallUnsupported)) throw error;
    yield partialStorageCheck({ refused: error, leftOut: "the search for abandoned multipart uploads" });
    return;
  }
  if (unsized) yield partialStorageCheck({ refused: unsized, leftOut: "the size of abandoned multipart uploads" });
  if (count === 0) return;
  const held = unsized ? "" : count > listed.length ? ` (the first ${listed.length} hold ${bytes} bytes)` : ` holding ${bytes} bytes of parts`;
  yield {
    severity: "warning",
    type: "file",
    collection: "storage",
    documentId: INCOMPLETE_UPLOADS_DOCUMENT,
    code: "INCOMPLETE_UPLOAD",
    message: `${count} multipart upload${count === 1 ? "" : "s"} begun more than a day ago never completed${held}: left by a process stopped mid-upload`,
    autoFixable: true,
    fix: {
      description: `Abort ${listed.length === 1 ? "it" : `these ${listed.length}`} (AbortMultipartUpload), which deletes the parts; nothing refers to them`,
      changes: listed,
    },
    status: "open",
    documentUpdatedAt: null,
  };
}

/**
 * The storage check: the sorted key list (ListObjectsV2 pages of 1,000) merged with the file
 * records sorted the same way, never one HEAD per object, in constant memory. Finds records
 * without an object, objects without a record (orphans), size mismatches, empty files and two
 * records for one object; image files without a preview; and multipart uploads abandoned
 * more than a day before `now` (left out, with a STORAGE_CHECK_PARTIAL issue, on a store without
 * ListMultipartUploads).
 */
export async function* storageFindings({ db, storage, now }: { db: Executor; storage: ObjectStorage; now: Date }): AsyncGenerator<StorageIssue> {
  const records = recordsByKey(db);
  const objects = objectsByKey(storage);
  const nextOf = async <T>(iterator: AsyncGenerator<T>): Promise<T | null> => {
    const result = await iterator.next();
    return result.done ? null : result.value;
  };
  let record = await nextOf(records);
  let object = await nextOf(objects);
  let previousKey: string | null = null;
  const issue = (
    documentId: string,
    updatedAt: string | null,
    fields: Omit<StorageIssue, "collection" | "documentId" | "status" | "documentUpdatedAt">,
  ): StorageIssue => ({
    ...fields,
    collection: "files",
    documentId,
    status: "open",
    documentUpdatedAt: updatedAt ? new Date(updatedAt).toISOString() : null,
  });
  while (record || object) {
    const key = record ? record.object_key : null;
    if (record && key === previousKey) {
      yield issue(record.id, record.updated_at, {
        severity: "warning",
        type: "file",
        code: "DUPLICATE_FILE_RECORD",
        message: `A second record for object ${key}`,
        observationId: record.doc.observationId,
        autoFixable: true,
        fix: {
          description: "Remove this duplicate record; the first one and the object stay, and its previews become the first one's",
          changes: [{ delete: "files", id: record.id }],
        },
      });
      record = await nextOf(records);
      continue;
    }
    if (record && key !== null && (!object || key < object.key)) {
      yield issue(record.id, record.updated_at, {
        severity: "critical",
        type: "file",
        code: "FILE_MISSING",
        message: `${record.doc.filename}: the record names ${key}, which is not in storage`,
        // Never in bulk: storage pointed at the wrong bucket makes every file look lost.
        autoFixable: false,
        fix: {
          description: "Remove the record of the lost file (its bytes are gone); the observation keeps its other files, and its previews stay, linked to none",
          changes: [{ delete: "files", id: record.id }],
        },
        nextStep:
          "First check that the server uses the right storage (S3_ENDPOINT, S3_BUCKET): with the wrong bucket every file looks lost. " +
          `If ${record.doc.filename} is lost, ask the observatory's operators to upload it again to its observation, ` +
          "then remove this record with the repair. Until then the observation's page shows the file as missing.",
        observationId: record.doc.observationId,
      });
      previousKey = key;
      record = await nextOf(records);
      continue;
    }
    if (!record || key === null || (object && key > object.key)) {
      const orphan = object!;
      yield issue(orphan.key, null, {
        severity: "warning",
        type: "file",
        code: "ORPHAN_OBJECT",
        message: `${orphan.key} (${orphan.size} bytes) is in storage but no file record names it`,
        autoFixable: true,
        fix: {
          description: "Move it under quarantine/ (deleted after 30 days) instead of deleting it",
          changes: [{ move: orphan.key, to: `quarantine/${orphan.key}` }],
        },
      });
      object = await nextOf(objects);
      continue;
    }
    const stored = object!;
    const doc = record.doc;
    if (stored.size !== doc.sizeBytes)
      yield issue(record.id, record.updated_at, {
        severity: "critical",
        type: "file",
        code: "SIZE_MISMATCH",
        message: `${doc.filename}: the record says ${doc.sizeBytes} bytes, storage holds ${stored.size}`,
        autoFixable: false,
        fix: null,
        nextStep: `The stored bytes are not the ones uploaded: ask the observatory's operators to upload ${doc.filename} again to its observation.`,
        observationId: doc.observationId,
      });
    else if (stored.size === 0)
      // The spec's "corrupted file entries": a record whose bytes are nothing is data lost.
      yield issue(record.id, record.updated_at, {
        severity: "critical",
        type: "file",
        code: "EMPTY_FILE",
        message: `${doc.filename} is empty`,
        autoFixable: false,
        fix: null,
        nextStep: `Ask the observatory's operators to upload ${doc.filename} again to its observation.`,
        observationId: doc.observationId,
      });
    previousKey = key;
    record = await nextOf(records);
    object = await nextOf(objects);
  }
  // A frame still queued has no preview yet and is not missing one: its analysis makes it (FRAME_NOT_ANALYSED tells a frame left queued).
  const unpreviewed = await db.execute<{ id: string; filename: string; observation_id: string; updated_at: string; frame_status: string | null }>(sql`
    select f.id, f.doc->>'filename' as filename, f.observation_id, f.updated_at, f.doc->'frame'->>'status' as frame_status from files f
     where f.doc->>'kind' = 'image' and coalesce(f.doc->'frame'->>'status', '') <> 'queued'
       and not exists (select 1 from files p where p.doc->>'previewOfId' = f.id)`);
  for (const row of unpreviewed)
    yield issue(row.id, row.updated_at, {
      severity: "info",
      type: "file",
      code: "MISSING_PREVIEW",
      ...missingPreview(row.filename, row.frame_status),
      autoFixable: false,
      fix: null,
      observationId: row.observation_id,
    });
  yield* incompleteUploadFindings({ storage, now });
}

/** What a missing preview means: a frame's is the server's to make after its analysis; any other image's was the plugin's to send. */
function missingPreview(filename: string, frameStatus: string | null): { message: string; nextStep?: string } {
  if (frameStatus === "analysed")
    return {
      message: `${filename} was analysed but has no preview, which the server makes after a frame's analysis when the plugin sent none`,
      nextStep: `Have ${filename} analysed again (POST /files/{id}/analyse): its analysis makes the missing preview.`,
    };
  if (frameStatus === "failed") return { message: `${filename} has no preview: its analysis failed before the server could make one (the frame says why)` };
  return { message: `${filename} has no preview image` };
}

/**
 * Reads objects back through SHA-256 at no more than `bytesPerSecond` overall, so a checksum pass
 * over a large bucket does not starve uploads and downloads of storage bandwidth.
 */
export function throttledHasher({ storage, bytesPerSecond }: { storage: ObjectStorage; bytesPerSecond: number }) {
  const started = performance.now();
  let bytes = 0;
  return {
    /** The object's SHA-256, or null when it is not in storage (the merge pass reports that). */
    async hash(key: string): Promise<string | null> {
      const object = await storage.get(key);
      if (!object) return null;
      const hash = createHash("sha256");
      for await (const chunk of object.body) {
        hash.update(chunk as Uint8Array);
        bytes += (chunk as Uint8Array).length;
        const ahead = (bytes / bytesPerSecond) * 1000 - (performance.now() - started);
        if (ahead > 0) await sleep(ahead);
      }
      return hash.digest("hex");
    },
  };
}

export const checksumMismatch = ({ record, actual }: { record: FileRow; actual: string }): StorageIssue => ({
  severity: "critical",
  type: "file",
  code: "CHECKSUM_MISMATCH",
  message: `${record.doc.filename}: stored bytes hash to ${actual.slice(0, 16)}…, the record says ${record.doc.sha256.slice(0, 16)}… (corrupt)`,
  collection: "files",
  documentId: record.id,
  autoFixable: false,
  fix: null,
  nextStep: `The stored bytes are corrupt: restore them from a copy, or ask the observatory's operators to upload ${record.doc.filename} again.`,
  observationId: record.doc.observationId,
  status: "open",
  documentUpdatedAt: new Date(record.updated_at).toISOString(),
});
