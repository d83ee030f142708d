import { AppError } from "../errors";

/**
 * The body's next chunk, or 408 REQUEST_TIMEOUT when the client sends nothing for `idleMs`: a
 * client that declared more than it sends, then falls silent, is answered instead of waited on
 * for ever. The answer closes the connection, since the rest of the declared body may still
 * come and must not be read as a next request. Only the wait on the client is timed.
 */
export async function readBeforeIdle<Result>({ reader, idleMs }: { reader: { read(): Promise<Result> }; idleMs: number }): Promise<Result> {
  let timer: NodeJS.Timeout | undefined;
  const idle = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new AppError("REQUEST_TIMEOUT", `No bytes of the body arrived for ${idleMs} ms; nothing was stored`, { headers: { connection: "close" } })),
      idleMs,
    );
  });
  try {
    return await Promise.race([reader.read(), idle]);
  } finally {
    clearTimeout(timer);
  }
}
