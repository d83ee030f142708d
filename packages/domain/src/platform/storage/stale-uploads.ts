import { StorageCallUnsupported, type IncompleteUpload, type ObjectStorage } from "@meridian/db";
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
 * The job cleans the S3 delivery destinations too (`abortStaleDestinationUploads`), and the
 * embedded store's half-written files (`removeAbandonedStoreWrites`).
 * On a store without ListMultipartUploads there is nothing it can find: it says so once in the
 * log and ends (`unsupported` names the call), instead of failing every day.
 */
export async function abortStaleUploads(options: { deps: Deps; olderThanMs?: number }): Promise<{ aborted: number; bytes: number; unsupported?: string }> {
  const { deps } = options;
  let aborted = 0;
  let bytes = 0;
  let unsized: string | undefined;
  const cutoff = new Date(deps.now().getTime() - (options.olderThanMs ?? STALE_UPLOAD_AGE_MS));
  try {
    for await (const upload of staleUploads({ storage: deps.storage, cutoff })) {
      if (!unsized)
        try {
          bytes += (await deps.storage.uploadedBytes(upload)) ?? 0;
        } catch (error) {
          if (!(error instanceof StorageCallUnsupported)) throw error;
          unsized = error.call;
          deps.logger.info({ call: error.call }, `${error.message}: the bytes aborted uploads held are not counted`);
        }
      await deps.storage.abortUpload(upload);
      aborted += 1;
    }
  } catch (error) {
    if (!(error instanceof StorageCallUnsupported)) throw error;
    deps.logger.info({ call: error.call, aborted }, `${error.message}: stale multipart uploads cannot be found, so none are aborted`);
    return { aborted, bytes, unsupported: error.call };
  }
  if (aborted > 0) deps.logger.info({ aborted, bytes }, "aborted incomplete multipart uploads left by stopped processes");
  return { aborted, bytes };
}
