import { AppError } from "@meridian/domain/platform";
import { describe, expect, it } from "vitest";
import { readLimitedBody } from "./read-limited-body";

const streamOf = (chunks: Uint8Array[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
const request = (body: BodyInit | null, headers: Record<string, string> = {}) =>
  new Request("http://localhost/upload", { method: "PUT", body, headers, duplex: "half" } as RequestInit);

const limits = (maxBytes: number, idleMs = 60_000) => ({ maxBytes, idleMs });

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("readLimitedBody", () => {
  it("returns the whole body up to the limit", async () => {
    const body = await readLimitedBody(request(streamOf([new Uint8Array([1, 2]), new Uint8Array([3, 4])])), limits(4));
    expect([...body]).toEqual([1, 2, 3, 4]);
  });

  it("returns an empty buffer without a body", async () => {
    expect((await readLimitedBody(new Request("http://localhost/upload", { method: "PUT" }), limits(10))).length).toBe(0);
  });

  it("refuses a declared Content-Length over the limit before reading", async () => {
    const error = await refusal(readLimitedBody(request(new Uint8Array(3), { "content-length": "11" }), limits(10)));
    expect(error.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("refuses a streamed body as soon as it grows past the limit", async () => {
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new Uint8Array(1024));
      },
    });
    const error = await refusal(readLimitedBody(request(endless), limits(4096)));
    expect(error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(pulled).toBeLessThan(10);
  });

  it("answers 408 REQUEST_TIMEOUT, closing the connection, when the client stops sending before the body is complete", async () => {
    let cancelled = false;
    const stalled = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(10));
        // Then nothing, ever.
      },
      cancel() {
        cancelled = true;
      },
    });
    const error = await refusal(readLimitedBody(request(stalled), limits(4096, 50)));
    expect(error).toMatchObject({ code: "REQUEST_TIMEOUT", status: 408, headers: { connection: "close" } });
    expect(cancelled).toBe(true);
  });
});
