import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";

/** Node's own answers to a connection it cannot parse (`_http_server.js`), each followed by a close. */
const rawAnswer = (status: string) => `HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`;
const answerFor: Record<string, string> = {
  HPE_HEADER_OVERFLOW: rawAnswer("431 Request Header Fields Too Large"),
  HPE_CHUNK_EXTENSIONS_OVERFLOW: rawAnswer("413 Payload Too Large"),
  ERR_HTTP_REQUEST_TIMEOUT: rawAnswer("408 Request Timeout"),
};

/** Whether a response is done with: all of it handed to the connection, or given up. */
const answered = (response: ServerResponse) => response.writableFinished || response.destroyed;

/**
 * Bytes a client sends after the body its Content-Length declared are, to HTTP, the start of its
 * next request; when they are not one, Node's parser fails on them. Node's default then writes
 * 400 and closes the connection at once, even while the request before is still being handled:
 * an upload was stored and its client saw only the 400, so it would send the file again.
 *
 * Here the requests read whole before the bad bytes are answered first, as they are handled
 * (201 for a stored file, an error when nothing was stored), with `Connection: close`; the
 * connection closes after them and the bad bytes get no answer of their own. Everything else
 * (a request cut in the middle of its own body or headers, a reset, a time-out) is answered as
 * Node does: its status, then the connection closes, which fails and cleans up a request whose
 * body is still being read.
 */
export function answerRequestsBeforeBadBytes(server: Server) {
  // Each request's response (its request is `response.req`), per connection.
  const inFlight = new WeakMap<Duplex, Set<ServerResponse>>();
  const closing = new WeakSet<Duplex>();
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    let open = inFlight.get(request.socket);
    if (!open) inFlight.set(request.socket, (open = new Set()));
    // A connection's requests come one after another: the answered ones are dropped here, which
    // costs less than a listener on every response.
    if (open.size > 0) for (const earlier of open) if (answered(earlier)) open.delete(earlier);
    open.add(response);
  });
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    const open = [...(inFlight.get(socket) ?? [])].filter((response) => !answered(response));
    const parseError = typeof error.code === "string" && error.code.startsWith("HPE_");
    // Node's parser goes on failing on whatever arrives after: once is enough.
    if (parseError && closing.has(socket)) return;
    if (parseError && open.length > 0 && open.every((response) => response.req.complete)) {
      closing.add(socket);
      for (const response of open) {
        if (!response.headersSent) response.setHeader("connection", "close");
        else response.once("finish", () => socket.end());
      }
      return;
    }
    // Never write into a response already on its way: that would corrupt what the client reads.
    if (socket.writable && open.every((response) => !response.headersSent)) socket.write(answerFor[error.code ?? ""] ?? rawAnswer("400 Bad Request"));
    socket.destroy(error);
  });
}
