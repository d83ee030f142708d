import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/** The most of a body read and dropped after its answer went out; past it the connection is cut. */
const LINGER_MAX_BYTES = 64 * 1024 * 1024;
/** The longest a connection lingers to drop the rest of a body, in all (nginx's `lingering_time`). */
const LINGER_MS = 30_000;
/** The longest a lingering connection waits for the client's next bytes (nginx's `lingering_timeout`). */
const LINGER_IDLE_MS = 5_000;

/** Whether the request may carry a body: a declared length above zero, or a chunked one. */
const carriesBody = (request: IncomingMessage) =>
  request.headers["transfer-encoding"] !== undefined || (request.headers["content-length"] !== undefined && request.headers["content-length"] !== "0");

/** Whether the whole declared body fits what a lingering connection reads, so the connection can stay open after it. */
const fitsLinger = (request: IncomingMessage) =>
  request.headers["transfer-encoding"] === undefined && Number(request.headers["content-length"]) <= LINGER_MAX_BYTES;

/**
 * A request can be answered before its body is in: 413 for a body past its limit, 401 before a
 * protected route reads one. Closing the connection then, while the client still sends, resets it
 * (the client's next write meets a closed socket: EPIPE, ECONNRESET), and a browser or SDK sees a
 * network failure instead of the answer. So, as nginx's lingering close does, the rest of the body
 * is read and dropped after the answer, within bounds (LINGER_MAX_BYTES, LINGER_MS in all,
 * LINGER_IDLE_MS between bytes), and only then does the connection close, if the answer said so.
 * A body whose declared length fits the bounds leaves its keep-alive connection open for the next
 * request; a larger or chunked one is answered with `Connection: close` when the answer comes first.
 * A 408 closes at once, without lingering: its client fell silent (UPLOAD_IDLE_TIMEOUT_MS), or sends so slowly
 * (MIN_BODY_BYTES_PER_SECOND, body-rate.ts) that reading the rest would hold the connection for that client alone;
 * such a client may meet the closed connection before it reads the answer.
 *
 * Node's server closes a connection whose answer said `close` with `socket.destroySoon()` when the
 * answer is written; @hono/node-server does the same half a second after an answer whose body it
 * did not read. While a connection lingers, that call is held until the body is in.
 */
export function lingerAfterEarlyAnswers(server: Server) {
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    if (!carriesBody(request)) return;
    if (!fitsLinger(request)) {
      const writeHead = response.writeHead;
      response.writeHead = function (this: ServerResponse, ...args: Parameters<typeof writeHead>) {
        if (!request.complete) this.shouldKeepAlive = false;
        return writeHead.apply(this, args);
      } as typeof writeHead;
    }
    response.once("prefinish", () => {
      if (!request.complete && !request.destroyed && response.statusCode !== 408) dropRestOfBody(request, response);
    });
  });
}

function dropRestOfBody(request: IncomingMessage, response: ServerResponse) {
  const socket = request.socket as Socket & { destroySoon(): void };
  const destroySoon = socket.destroySoon;
  let closeAfter = false;
  let dropped = 0;
  // Only Node's own call, for an answer that said `close`, is kept for later; @hono/node-server's would close a keep-alive connection.
  socket.destroySoon = () => {
    if (!response.shouldKeepAlive) closeAfter = true;
  };
  const finish = (cut: boolean) => {
    clearTimeout(whole);
    clearTimeout(idle);
    request.off("data", onData);
    request.off("end", onEnd);
    request.off("error", onEnd);
    request.off("close", onEnd);
    socket.destroySoon = destroySoon;
    if (cut) socket.destroy();
    else if (closeAfter) socket.destroySoon();
  };
  const cut = () => finish(true);
  const whole = setTimeout(cut, LINGER_MS);
  const idle = setTimeout(cut, LINGER_IDLE_MS);
  const onData = (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > LINGER_MAX_BYTES) return cut();
    idle.refresh();
  };
  const onEnd = () => finish(false);
  request.once("end", onEnd);
  request.once("error", onEnd);
  request.once("close", onEnd);
  // Once the answer is written, Node drops the body's reader (`_dump`) unless one read it already: after
  // that, whatever read it before (a web stream no longer read, which would pause it again) is dropped here.
  response.once("finish", () => {
    if (request.complete) return;
    request.removeAllListeners("data");
    request.on("data", onData);
    request.resume();
  });
}
