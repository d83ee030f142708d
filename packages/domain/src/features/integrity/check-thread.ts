import { parentPort } from "node:worker_threads";
import { checkDocuments, type DocumentBatch } from "./document-checks";

/** A scan's check thread: batches of documents in, what they say on their own out. */
parentPort?.on("message", (message: { id: number; batch: DocumentBatch }) => {
  try {
    parentPort!.postMessage({ id: message.id, result: checkDocuments(message.batch) });
  } catch (error) {
    parentPort!.postMessage({ id: message.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
});
