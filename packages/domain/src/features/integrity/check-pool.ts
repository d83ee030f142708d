import { availableParallelism } from "node:os";
import { startTypeScriptThread } from "../../platform/threads/start-thread";
import { checkDocuments, type DocumentBatch, type DocumentBatchResult } from "./document-checks";

export interface DocumentChecker {
  /** How many batches it checks at once. */
  readonly parallelism: number;
  check(batch: DocumentBatch): Promise<DocumentBatchResult>;
  close(): Promise<void>;
}

/** Checks in the calling thread: for small scans, where starting threads would cost more than it saves. */
export const inThreadChecker: DocumentChecker = {
  parallelism: 1,
  check: async (batch) => checkDocuments(batch),
  close: async () => undefined,
};

/**
 * Parsing and validating documents is a scan's bottleneck and runs on one core, while the
 * database has others to spare: a large collection's batches go to a pool of worker threads, one
 * per core (at most four), each batch to the least busy thread.
 */
export function threadedChecker(size = Math.min(4, availableParallelism())): DocumentChecker {
  type Pending = { resolve: (result: DocumentBatchResult) => void; reject: (error: Error) => void };
  const threads = Array.from({ length: size }, () => {
    const worker = startTypeScriptThread({ entry: new URL("./check-thread.ts", import.meta.url) });
    const pending = new Map<number, Pending>();
    const failAll = (error: Error) => {
      for (const waiting of pending.values()) waiting.reject(error);
      pending.clear();
    };
    worker.on("message", (message: { id: number; result?: DocumentBatchResult; error?: string }) => {
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      if (message.error !== undefined) waiting?.reject(new Error(`a check thread failed: ${message.error}`));
      else waiting?.resolve(message.result!);
    });
    worker.on("error", failAll);
    worker.on("exit", (code) => failAll(new Error(`a check thread stopped (exit code ${code})`)));
    return { worker, pending };
  });
  let nextId = 0;
  return {
    parallelism: size,
    check(batch) {
      const thread = threads.reduce((least, candidate) => (candidate.pending.size < least.pending.size ? candidate : least));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        thread.pending.set(id, { resolve, reject });
        // The documents' buffer moves to the thread instead of being copied.
        thread.worker.postMessage({ id, batch }, [batch.documents.text.buffer as ArrayBuffer]);
      });
    },
    async close() {
      await Promise.all(threads.map((thread) => thread.worker.terminate()));
    },
  };
}
