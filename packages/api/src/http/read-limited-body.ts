import { AppError, readBeforeIdle } from "@meridian/domain/platform";

/**
 * Reads a raw request body, refusing with 413 as soon as it grows past `maxBytes`, and with 408
 * when the client sends nothing for `idleMs` before it is complete.
 */
export async function readLimitedBody(request: Request, limits: { maxBytes: number; idleMs: number }): Promise<Buffer> {
  const { maxBytes } = limits;
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) throw new AppError("PAYLOAD_TOO_LARGE", `The body may be at most ${maxBytes} bytes`);
  if (!request.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  try {
    for (;;) {
      const { done, value } = await readBeforeIdle({ reader, idleMs: limits.idleMs });
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) throw new AppError("PAYLOAD_TOO_LARGE", `The body may be at most ${maxBytes} bytes`);
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    throw error;
  }
  return Buffer.concat(chunks);
}
