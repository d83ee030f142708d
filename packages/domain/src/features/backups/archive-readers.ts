import { createHash } from "node:crypto";
import { availableParallelism } from "node:os";
import { PassThrough } from "node:stream";
import type { Worker } from "node:worker_threads";
import { BACKUP_READER_CONNECTIONS } from "@meridian/config";
import type { BackupPart } from "@meridian/db";
import type { Deps } from "../../platform/deps";
import { startTypeScriptThread } from "../../platform/threads/start-thread";
import { tap } from "./archive-io";
import type { ArchiveParentMessage, ArchiveThreadData, ArchiveThreadMessage, SectionDone, SectionPlan } from "./archive-thread-protocol";

/** Reader threads at once: one backend producing COPY text per core, within the connection budget's backup line. */
export const BACKUP_READERS = Math.min(BACKUP_READER_CONNECTIONS, Math.max(2, availableParallelism()));

const sectionOf = ({ collection, columns, rows, bytes, sha256, blocks }: SectionDone): BackupPart["sections"][number] =>
  // A whole collection's section has no `blocks` key at all, so the manifest reads back from JSON as it was written.
  blocks ? { name: collection, columns, rows, bytes, sha256, blocks } : { name: collection, columns, rows, bytes, sha256 };

/** One part's upload: the thread's compressed chunks go into `stream`, counted and hashed on their way to storage. */
function startPartUpload(deps: Deps, key: string) {
  const hash = createHash("sha256");
  let sizeBytes = 0;
  const stream = new PassThrough();
  const counted = tap((chunk) => {
    hash.update(chunk);
    sizeBytes += chunk.length;
  });
  stream.on("error", (error) => counted.destroy(error));
  const uploaded = deps.storage.put(key, stream.pipe(counted), { contentType: "application/x-brotli" });
  return { stream, done: uploaded.then(() => ({ sizeBytes, sha256: hash.digest("hex") })) };
}

/**
 * Runs BACKUP_READERS reader threads (`archive-thread.ts`) on the exported snapshot and gives
 * each the next part as it finishes one, so a slow range never leaves the others idle. Each part
 * is uploaded as its own object while it is written; a thread is never more than its credits
 * ahead of that upload, so memory stays at a few chunks and upload buffers per thread. Resolves
 * with the parts in plan order once every upload is complete; on any failure, or once `signal`
 * aborts, every thread is stopped and every unfinished upload aborted, and it rejects only after
 * every upload has settled, so nothing it started lands in storage after that.
 */
export function runReaders(options: {
  deps: Deps;
  data: ArchiveThreadData;
  plans: SectionPlan[][];
  keyOf: (index: number) => string;
  onRows: (rows: number) => void;
  signal?: AbortSignal;
}): Promise<BackupPart[]> {
  const { deps, data, plans, keyOf, onRows, signal } = options;
  const parts: BackupPart[] = [];
  const uploads: Array<Promise<void>> = [];
  const open = new Set<PassThrough>();
  const threads: Worker[] = [];
  const rowsOf: number[] = [];
  const sectionsOf: SectionDone[][] = [];
  let next = 0;
  let finished = 0;
  return new Promise<BackupPart[]>((resolve, reject) => {
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      for (const stream of open) stream.destroy(error);
      for (const thread of threads) void thread.terminate();
      void Promise.allSettled(uploads).then(() => reject(error));
    };
    const stop = () => fail(signal!.reason instanceof Error ? signal!.reason : new Error("the backup's readers were stopped"));
    if (signal?.aborted) return stop();
    signal?.addEventListener("abort", stop, { once: true });
    const readers = Math.min(BACKUP_READERS, plans.length);
    for (let reader = 0; reader < readers; reader++) {
      const thread = startTypeScriptThread({ entry: new URL("./archive-thread.ts", import.meta.url), data });
      threads.push(thread);
      rowsOf.push(0);
      let current: { stream: PassThrough; index: number } | undefined;
      let ended = false;
      const credit = () => thread.postMessage({ type: "credit" } satisfies ArchiveParentMessage);
      const give = () => {
        if (next >= plans.length) return thread.postMessage({ type: "finish" } satisfies ArchiveParentMessage);
        const index = next++;
        const upload = startPartUpload(deps, keyOf(index));
        open.add(upload.stream);
        current = { stream: upload.stream, index };
        // The upload completes only after the stream ends, which is when the thread has said what the part holds.
        const stored = upload.done.then(({ sizeBytes, sha256 }) => {
          parts[index] = { key: keyOf(index), sizeBytes, sha256, sections: sectionsOf[index]!.map(sectionOf) };
        });
        stored.catch(fail);
        uploads.push(stored);
        thread.postMessage({ type: "part", sections: plans[index]! } satisfies ArchiveParentMessage);
      };
      thread.on("error", fail);
      thread.on("exit", (code) => {
        if (!ended) fail(new Error(`a backup reader thread stopped (exit code ${code})`));
      });
      thread.on("message", (message: ArchiveThreadMessage) => {
        if (settled) return;
        if (message.type === "ready") give();
        else if (message.type === "chunk") {
          const chunk = Buffer.from(message.chunk.buffer, message.chunk.byteOffset, message.chunk.byteLength);
          if (current!.stream.write(chunk)) credit();
          else current!.stream.once("drain", credit);
        } else if (message.type === "rows") {
          rowsOf[reader] = message.rows;
          onRows(rowsOf.reduce((sum, rows) => sum + rows, 0));
        } else if (message.type === "part") {
          sectionsOf[current!.index] = message.sections;
          open.delete(current!.stream);
          current!.stream.end();
          current = undefined;
          give();
        } else if (message.type === "done") {
          ended = true;
          void thread.terminate();
          finished += 1;
          if (finished === readers)
            Promise.all(uploads).then(() => {
              settled = true;
              signal?.removeEventListener("abort", stop);
              resolve(parts);
            }, fail);
        } else fail(new Error(message.message));
      });
    }
  });
}
