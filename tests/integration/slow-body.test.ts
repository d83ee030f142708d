import net from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi } from "../support/json-api";
import { observationWithKey } from "../support/observatory-keys";
import { serverWithLimits } from "../support/server-with-limits";
import type { TestServer } from "../support/test-server";

/*
 * A body that trickles in (a byte now and then, each one resetting UPLOAD_IDLE_TIMEOUT_MS) is ended
 * by its rate: once BODY_RATE_GRACE_MS passed it must average MIN_BODY_BYTES_PER_SECOND, else 408
 * REQUEST_TIMEOUT as a problem. A slow body well above the rate goes through.
 */

const MIN_RATE = 200;

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends a request's head declaring `length` bytes, then `chunk` bytes every `everyMs` (a pace,
 * not an assertion) until the whole body is sent or an answer has come in whole; returns the answer.
 */
async function sendPaced(
  url: string,
  request: { method: string; path: string; headers: Record<string, string> },
  pace: { length: number; chunk: number; everyMs: number },
) {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  let received = Buffer.alloc(0);
  let answer: Answer | undefined;
  const answered = new Promise<Answer>((resolve, reject) => {
    socket.on("data", (data: Buffer) => {
      received = Buffer.concat([received, data]);
      const end = received.indexOf("\r\n\r\n");
      if (end < 0) return;
      const [statusLine, ...lines] = received.subarray(0, end).toString("latin1").split("\r\n");
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
      const length = Number(headers["content-length"] ?? 0);
      if (received.length < end + 4 + length) return;
      answer = { status: Number(statusLine!.split(" ")[1]), headers, body: received.subarray(end + 4, end + 4 + length).toString("utf8") };
      resolve(answer);
    });
    socket.on("error", reject);
    socket.on("close", () => reject(new Error("closed before an answer")));
  });
  answered.catch(() => undefined);
  const head = Object.entries({ host: `${hostname}:${port}`, "content-length": String(pace.length), ...request.headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  socket.write(`${request.method} ${request.path} HTTP/1.1\r\n${head}\r\n`);
  try {
    for (let sent = 0; sent < pace.length && !answer && !socket.destroyed; sent += pace.chunk) {
      socket.write(Buffer.alloc(Math.min(pace.chunk, pace.length - sent), 0x20));
      await new Promise((resolve) => setTimeout(resolve, pace.everyMs));
    }
    return await answered;
  } finally {
    socket.destroy();
  }
}

const problemOf = (answer: Answer) => ({
  status: answer.status,
  contentType: answer.headers["content-type"],
  code: (JSON.parse(answer.body) as { code?: string }).code,
});

describe("a request body's least rate", () => {
  const limited = serverWithLimits({ MIN_BODY_BYTES_PER_SECOND: String(MIN_RATE), BODY_RATE_GRACE_MS: "1000", UPLOAD_IDLE_TIMEOUT_MS: "60000" });
  let server: TestServer;
  let owner: Account;
  let key: string;
  let observationId: string;
  const { must } = jsonApi(() => server);
  beforeAll(async () => {
    server = limited.server;
    owner = await createAccount(server);
    const vega = { name: "Vega", ra: 279.23, dec: 38.78, exposures: [{ filter: "V", exposureSeconds: 1, count: 1, binning: 1 }] };
    ({
      key,
      observation: { id: observationId },
    } = await observationWithKey(must, { owner, project: "Trickle", observation: { name: "Slow", targets: [vega] } }));
  });
  // A byte every 100 ms: 10 bytes a second, far below the rate, and each byte well within the idle timeout.
  const trickle = { length: 100_000, chunk: 1, everyMs: 100 };

  it("answers an upload trickled a byte at a time 408 REQUEST_TIMEOUT as a problem", async () => {
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/octet-stream" };
    const answer = await sendPaced(server.url, { method: "POST", path: `/observations/${observationId}/files?filename=trickle.fits`, headers }, trickle);
    expect(problemOf(answer)).toEqual({ status: 408, contentType: "application/problem+json", code: "REQUEST_TIMEOUT" });
    expect(answer.headers.connection).toBe("close");
  });

  it("answers a JSON body trickled a byte at a time 408 REQUEST_TIMEOUT as a problem", async () => {
    const headers = { authorization: `Bearer ${owner.token}`, "content-type": "application/json" };
    const answer = await sendPaced(server.url, { method: "POST", path: "/observatories", headers }, trickle);
    expect(problemOf(answer)).toEqual({ status: 408, contentType: "application/problem+json", code: "REQUEST_TIMEOUT" });
  });

  it("stores an upload sent slowly but far above the rate, past the grace period", async () => {
    // 2,000 bytes every 100 ms: about 20,000 bytes a second, a hundred times the rate, for about 3 s.
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/octet-stream" };
    const answer = await sendPaced(
      server.url,
      { method: "POST", path: `/observations/${observationId}/files?filename=steady.fits`, headers },
      { length: 60_000, chunk: 2_000, everyMs: 100 },
    );
    expect(answer.status).toBe(201);
  });
});
