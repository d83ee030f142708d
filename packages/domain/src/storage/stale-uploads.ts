import type { IncompleteUpload, ObjectStorage } from "@meridian/db";
import type { Deps } from "../deps";

/**
 * A multipart upload neither completed nor aborted after this long was left by a process that
 * stopped mid-upload (killed, or storage unreachable when it tried to abort): nothing will finish it.
 */
export const STALE_UPLOAD_AGE_MS = 86_400_000;

/** The bucket's incomplete multipart uploads begun before `cutoff`, by key. */
export async function* staleUploads({ storage, cutoff }: { storage: ObjectStorage; cutoff: Date }): AsyncGenerator<IncompleteUpload> {
  for await (const page of storage.listIncompleteUploads())
    // A store that does not say when an upload began gives no reason to think it abandoned.
    for (const upload of page) if (upload.initiated && upload.initiated.getTime() < cutoff.getTime()) yield upload;
}

/**
 * The `abort_stale_uploads` job (daily): aborts every incomplete multipart upload older than
 * `olderThanMs` (a day), which deletes its parts. Uploads that fail in a running process are
 * aborted there; these are what killed processes left. Returns how many and the bytes freed.
 */
export async function abortStaleUploads(options: { deps: Deps; olderThanMs?: number }) {
  const { deps } = options;
  let aborted = 0;
  let bytes = 0;
  const cutoff = new Date(deps.now().getTime() - (options.olderThanMs ?? STALE_UPLOAD_AGE_MS));
  for await (const upload of staleUploads({ storage: deps.storage, cutoff })) {
    bytes += (await deps.storage.uploadedBytes(upload)) ?? 0;
    await deps.storage.abortUpload(upload);
    aborted += 1;
  }
  if (aborted > 0) deps.logger.info({ aborted, bytes }, "aborted incomplete multipart uploads left by stopped processes");
  return { aborted, bytes };
}
