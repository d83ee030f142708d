import { createServer, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import type { AnyProcedure } from "@trpc/server";
import { onTestFinished } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import type { RealtimeEventType, RealtimeEvents } from "../lib/realtime";
import type { RouterInputs, RouterOutputs } from "../organizations/types";
import type { AppRouter } from "../trpc";

/** Every procedure's dotted path (`admin.users.list`), from the server's router. */
type PathsOf<Record, Prefix extends string = ""> = {
  [Key in keyof Record & string]: Record[Key] extends AnyProcedure ? `${Prefix}${Key}` : PathsOf<Record[Key], `${Prefix}${Key}.`>;
}[keyof Record & string];

export type ProcedurePath = PathsOf<AppRouter["_def"]["record"]>;

/** The type at a dotted path of a nested type: `At<RouterInputs, "admin.users.list">`. */
type At<Tree, Path extends string> = Path extends `${infer Head}.${infer Rest}`
  ? Head extends keyof Tree
    ? At<Tree[Head], Rest>
    : never
  : Path extends keyof Tree
    ? Tree[Path]
    : never;

/** An answer with only the fields the component reads: every field may be left out, at any depth. */
export type Loose<T> = T extends ReadonlyArray<infer Item> ? ReadonlyArray<Loose<Item>> : T extends object ? { [Key in keyof T]?: Loose<T[Key]> } : T;

export type ProcedureInput<Path extends ProcedurePath> = At<RouterInputs, Path>;
export type ProcedureOutput<Path extends ProcedurePath> = At<RouterOutputs, Path>;
/** What a stubbed procedure may answer: its output with only the fields the component reads (for typed fixtures). */
export type Answer<Path extends ProcedurePath> = Loose<ProcedureOutput<Path>>;

/** How the stub answers one procedure: from its input, at once or later (a pending state), or by throwing a `StubRefusal`. */
type Handler<Path extends ProcedurePath> = (input: ProcedureInput<Path>) => Answer<Path> | Promise<Answer<Path>>;

export type Procedures = { [Path in ProcedurePath]?: Handler<Path> };

/** A refusal a stubbed tRPC procedure answers with, as the server's error formatter shapes it (`errors`: the fields it names). */
export class StubRefusal extends Error {
  constructor(
    readonly code: string,
    readonly httpStatus: number,
    message: string,
    readonly errors: ReadonlyArray<{ path: string; message: string }> | null = null,
  ) {
    super(message);
  }
}

/** A request the test's API received, its body as text. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An answer to a request that is not tRPC's. */
export interface PlainAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

/** One call of a procedure, as the stub heard it. */
interface Call {
  path: string;
  input: unknown;
}

/** The inputs of a tRPC batch: `?input=` for queries (GET), the JSON body for mutations (POST). */
function batchInputs(url: URL, request: ReceivedRequest): Record<string, unknown> {
  const text = request.method === "POST" ? request.body : (url.searchParams.get("input") ?? "");
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

/** The answer of a tRPC batch (`/trpc/a,b?batch=1`): each call's data, or its refusal as the server's error formatter shapes it. */
async function trpcBatch(url: URL, request: ReceivedRequest, procedures: Procedures, calls: Call[]): Promise<PlainAnswer> {
  const names = decodeURIComponent(url.pathname.slice("/trpc/".length)).split(",");
  const inputs = batchInputs(url, request);
  const answers = await Promise.all(
    names.map(async (name, index) => {
      const input = inputs[String(index)];
      calls.push({ path: name, input });
      try {
        const handler = procedures[name as ProcedurePath] as ((input: unknown) => unknown) | undefined;
        if (!handler) throw new StubRefusal("NOT_FOUND", 404, `No procedure ${name} in this test`);
        return { result: { data: await handler(input) } };
      } catch (error) {
        const refusal = error instanceof StubRefusal ? error : new StubRefusal("INTERNAL", 500, String(error));
        const data = { code: refusal.code, httpStatus: refusal.httpStatus, errors: refusal.errors, requestId: null };
        return { error: { message: refusal.message, code: -32600, data } };
      }
    }),
  );
  const failed = answers.some((answer) => "error" in answer);
  return { status: failed ? 207 : 200, headers: { "content-type": "application/json" }, body: JSON.stringify(answers) };
}

/**
 * The realtime channel at `/ws`, as the app's `RealtimeProvider` connects to Meridian's: it accepts the socket and sends
 * what the test pushes; what the page sends is not read.
 */
function realtimeChannel() {
  const server = new WebSocketServer({ noServer: true });
  let opened = 0;
  server.on("connection", () => (opened += 1));
  return {
    accept(request: IncomingMessage, socket: Duplex, head: Buffer) {
      if (!request.url?.startsWith("/ws")) {
        socket.destroy();
        return;
      }
      server.handleUpgrade(request, socket, head, (client) => server.emit("connection", client, request));
    },
    /** How many pages' sockets are open. */
    connections: () => [...server.clients].filter((client) => client.readyState === WebSocket.OPEN).length,
    /** How many sockets were ever opened here: more than one once a page has connected again after a `drop`. */
    opened: () => opened,
    /** Sends an event to every open socket, as the server publishes one. */
    push<Type extends RealtimeEventType>(type: Type, data: RealtimeEvents[Type]) {
      for (const client of server.clients) client.send(JSON.stringify({ type, data }));
    },
    /** Cuts every open socket as a lost network does (no closing handshake); the server keeps listening, so the page reconnects. */
    drop() {
      for (const client of server.clients) client.terminate();
    },
    closeAll() {
      for (const client of server.clients) client.terminate();
      server.close();
    },
  };
}

/**
 * The API the SPA talks to, for a component test: an HTTP server on a free port answering tRPC from
 * `procedures` (typed by the server's router; a procedure left out answers NOT_FOUND) and every
 * other request from `other`, each request kept in `received` and each procedure's input in
 * `calls`. The test's page is put at its origin, so the SPA's same-origin requests (`/trpc`,
 * `/frames/archive`, uploads) reach it as they reach Meridian, with the cookies of `document.cookie`,
 * and the realtime socket (`/ws`) reaches `realtime`, whose `push` publishes an event to it.
 * It closes when the test ends (`close` closes it sooner).
 */
export async function startApi(procedures: Procedures, other: (request: ReceivedRequest) => PlainAnswer = () => ({ status: 404 })) {
  const received: ReceivedRequest[] = [];
  const heard: Call[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const got = { method: request.method ?? "GET", path: request.url ?? "/", headers: request.headers, body: Buffer.concat(chunks).toString("utf8") };
      received.push(got);
      const url = new URL(got.path, "http://api.test");
      void (async () => {
        const answer = url.pathname.startsWith("/trpc/") ? await trpcBatch(url, got, procedures, heard) : other(got);
        response.writeHead(answer.status, answer.headers);
        response.end(answer.body);
      })();
    });
  });
  const channel = realtimeChannel();
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => channel.accept(request, socket, head));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  (window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL(`${origin}/app/`);
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= new Promise<void>((resolve) => {
      channel.closeAll();
      server.closeAllConnections();
      server.close(() => resolve());
    }));
  onTestFinished(close);
  return {
    origin,
    received,
    /** The inputs `path` was called with, in order. */
    calls: <Path extends ProcedurePath>(path: Path) => heard.filter((call) => call.path === path).map((call) => call.input as ProcedureInput<Path>),
    /** The procedures called, in order, by path. */
    called: () => heard.map((call) => call.path),
    /**
     * The realtime channel (`/ws`): `push` an event to the page's socket once `connections()` says it is open (render it in a
     * `RealtimeProvider`); `drop` cuts it, and the page connects again on its own.
     */
    realtime: { connections: channel.connections, opened: channel.opened, push: channel.push, drop: channel.drop },
    close,
  };
}
