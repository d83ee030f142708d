import net from "node:net";

export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** What one request on a raw connection came to: its answer, or the error its connection met first. */
export type RawOutcome = { status: number; headers: Record<string, string>; body: string } | { error: string };

const CHUNK = 64 * 1024;

/**
 * One keep-alive HTTP/1.1 connection over a bare socket, sending one request at a time the way a
 * browser does: the whole body, in chunks as the socket takes them, however early the answer comes.
 * (Node's own client stops sending a body once its answer is in: it cannot show a reset.) A request
 * counts as answered when its answer was read whole and all its body was taken; an error of the
 * connection before that (EPIPE, ECONNRESET, a close) is its outcome instead. After an answer that
 * says `Connection: close`, or an error, the connection is done and `usable` is false.
 */
export async function openRawConnection(url: string) {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  let received = Buffer.alloc(0);
  let failure: string | undefined;
  let wake: (() => void) | undefined;
  socket.on("data", (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    wake?.();
  });
  socket.on("error", (error: NodeJS.ErrnoException) => {
    failure ??= error.code ?? error.message;
    wake?.();
  });
  socket.on("close", () => {
    failure ??= "closed";
    wake?.();
  });
  const changed = () => new Promise<void>((resolve) => (wake = resolve));

  /** The next answer on the connection, read whole; undefined once the connection failed first. */
  async function nextAnswer() {
    for (;;) {
      const end = received.indexOf("\r\n\r\n");
      if (end >= 0) {
        const [statusLine, ...lines] = received.subarray(0, end).toString("latin1").split("\r\n");
        const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
        const length = Number(headers["content-length"] ?? 0);
        if (received.length >= end + 4 + length) {
          const body = received.subarray(end + 4, end + 4 + length).toString("utf8");
          received = received.subarray(end + 4 + length);
          return { status: Number(statusLine!.split(" ")[1]), headers, body };
        }
      }
      if (failure) return undefined;
      await changed();
    }
  }

  async function sendBody(request: RawRequest) {
    const head = Object.entries({ host: `${hostname}:${port}`, "content-length": String(request.body.length), ...request.headers })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("");
    socket.write(`${request.method} ${request.path} HTTP/1.1\r\n${head}\r\n`);
    for (let offset = 0; offset < request.body.length && !failure; offset += CHUNK) {
      if (!socket.write(request.body.subarray(offset, offset + CHUNK)))
        await new Promise<void>((resolve) => socket.once("drain", resolve).once("close", resolve));
    }
    // Every byte handed to the operating system: the socket's own buffer is empty.
    while (socket.writableLength > 0 && !failure) await new Promise<void>((resolve) => socket.once("drain", resolve).once("close", resolve));
    return !failure;
  }

  return {
    get usable() {
      return !failure && !socket.destroyed;
    },
    async send(request: RawRequest): Promise<RawOutcome> {
      const [answer, sentAll] = await Promise.all([nextAnswer(), sendBody(request)]);
      if (!sentAll) return { error: failure === "closed" ? "closed before the body was sent" : failure! };
      // A close the answer announced is no failure; anything else the connection met is.
      if (!answer || (failure && failure !== "closed")) return { error: failure ?? "closed" };
      if (answer.headers.connection === "close") failure ??= "closed after the answer";
      return answer;
    },
    close() {
      socket.destroy();
    },
  };
}
