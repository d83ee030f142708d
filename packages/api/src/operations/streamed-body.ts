import type { Readable } from "node:stream";

/** Bytes a streamed body reads ahead of the client (the socket's own buffers aside). */
const READ_AHEAD_BYTES = 256 * 1024;

/**
 * A response body pulled from `next` only as the client takes it (the server writes a chunk, waits
 * for the socket to drain, then asks for more), and ended with `stop` when the client goes away.
 * An empty chunk is skipped: a pull that enqueues nothing would never be called again.
 */
function pulledBody(next: () => Promise<IteratorResult<Uint8Array | string>>, stop: () => Promise<unknown>) {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          const step = await next();
          if (step.done) return controller.close();
          const bytes = typeof step.value === "string" ? encoder.encode(step.value) : step.value;
          if (bytes.byteLength > 0) return controller.enqueue(bytes);
        }
      },
      async cancel() {
        await stop();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: READ_AHEAD_BYTES }),
  );
}

/**
 * A body of text chunks from a generator. The first chunk is awaited here, so what fails before it
 * (an unknown id, the query) is still answered with a problem and a status; a client that goes away
 * ends the generator (`return()`), which runs its `finally` blocks (a database cursor closes).
 */
export async function textChunksBody(chunks: AsyncGenerator<string, void>) {
  const first = await chunks.next();
  let waiting: IteratorResult<string, void> | undefined = first;
  return pulledBody(
    async () => {
      const step = waiting ?? (await chunks.next());
      waiting = undefined;
      return step;
    },
    () => chunks.return(),
  );
}

/**
 * A Node stream as a response body that reads ahead at most READ_AHEAD_BYTES. Not `Readable.toWeb`:
 * on Node 20 it counts its high-water mark in chunks (16,384 of them), so a slow client could make it
 * hold gigabytes. A client that goes away destroys the stream.
 */
export function nodeStreamBody(stream: Readable) {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  return pulledBody(
    () => iterator.next(),
    async () => {
      stream.destroy();
    },
  );
}
