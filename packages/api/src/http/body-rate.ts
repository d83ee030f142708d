import { AppError } from "@meridian/domain/platform";

interface BodyRateBounds {
  /** The least average rate a body must keep (MIN_BODY_BYTES_PER_SECOND). */
  minBytesPerSecond: number;
  /** How long a body may take before its average is held to the rate (BODY_RATE_GRACE_MS). */
  graceMs: number;
}

/**
 * A body that keeps at least `minBytesPerSecond` on average once `graceMs` passed, else ends with
 * 408 REQUEST_TIMEOUT (closing the connection: the rest of the body may still come). An idle
 * timeout alone never ends a body trickled a byte at a time, each byte resetting it. Only the time
 * its reader waits on the client counts: a reader that pauses (a store taking a part) costs the
 * client nothing, and bytes already buffered are taken before the bound is looked at.
 */
function boundBodyRate(body: ReadableStream<Uint8Array>, bounds: BodyRateBounds, onTooSlow: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let bytes = 0;
  let waitedMs = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const started = performance.now();
      // The time the bytes so far allow the client, and never less than the grace period.
      const allowedMs = Math.max(bounds.graceMs, (bytes / bounds.minBytesPerSecond) * 1000);
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<"expired">((resolve) => {
        timer = setTimeout(() => resolve("expired"), Math.max(0, allowedMs - waitedMs));
      });
      try {
        const next = await Promise.race([reader.read(), expired]);
        if (next === "expired") {
          onTooSlow();
          await reader.cancel().catch(() => undefined);
          controller.error(bodyTooSlow(bounds));
        } else if (next.done) controller.close();
        else {
          bytes += next.value.byteLength;
          controller.enqueue(next.value);
        }
      } catch (error) {
        controller.error(error);
      } finally {
        clearTimeout(timer);
        waitedMs += performance.now() - started;
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/** Puts a rate-bounded body (`boundBodyRate`) in place of a request's own; `tooSlow()` tells whether it ended for that. */
export function withBoundedBodyRate(request: Request, bounds: BodyRateBounds): { request: Request; tooSlow(): boolean } {
  if (!request.body) return { request, tooSlow: () => false };
  let endedTooSlow = false;
  const body = boundBodyRate(request.body, bounds, () => (endedTooSlow = true));
  return { request: new Request(request, { body, duplex: "half" } as RequestInit), tooSlow: () => endedTooSlow };
}

/** The answer for a body ended by its rate, whatever its reader made of the error (a validator's 400, say). */
export const bodyTooSlow = (bounds: BodyRateBounds) =>
  new AppError("REQUEST_TIMEOUT", `The body arrived slower than ${bounds.minBytesPerSecond} bytes per second; nothing was done with it`, {
    headers: { connection: "close" },
  });
