import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestContext } from "../context";
import { Reply, type AnyOperation } from "../operations/define-operation";
import { callOperation } from "../operations/rest-adapter";
import { checkAccess } from "./auth-guard";
import { nodeRequestHeaders } from "./credentials";
import type { RequestFacts } from "./request-context";
import type { RequestStamp } from "./request-stamp";

/** A Node request listener: what @hono/node-server makes of Hono's pipeline, and what the direct reads put in front of it. */
export type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * Whether an operation is one of the direct reads: a GET of a fixed path that takes no input (no
 * parameters, query or body), so its answer depends on the caller alone: who is signed in, the
 * pending announcements, the health of the process.
 */
function readsDirectly(operation: AnyOperation): boolean {
  const { method, path } = operation;
  return (
    method === "get" &&
    path !== undefined &&
    !path.includes("{") &&
    !operation.params &&
    !operation.query &&
    !operation.body &&
    !operation.requestBody &&
    !operation.readBody
  );
}

/** Only sign-in and sign-out set the cookie; a read that tried would be answered by the pipeline, which can. */
const refuseCookieChange = (): never => {
  throw new Error("a direct read cannot set the session cookie");
};

/** A request that could carry a body goes to the pipeline, which treats it as it treats every other. */
const hasBody = (request: IncomingMessage) => request.headers["transfer-encoding"] !== undefined || (request.headers["content-length"] ?? "0") !== "0";

interface Answer {
  status: number;
  body: string | Uint8Array | null;
  headers: Record<string, string>;
}

/** What Hono's REST adapter would send for an operation's result (`rest-adapter.ts`, through @hono/node-server), or undefined for a stream. */
function answerOf(operation: AnyOperation, result: unknown): Answer | undefined {
  if (result instanceof Reply) {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(result.headers as Record<string, string>)) headers[name.toLowerCase()] = value;
    const body: unknown = result.body;
    if (body instanceof ReadableStream) {
      void body.cancel();
      return undefined;
    }
    // As Hono sends them: a serialized body or bytes with the reply's own headers and nothing added.
    if (typeof body === "string" || body instanceof Uint8Array || body === null) return { status: result.status, body, headers };
    headers["content-type"] ??= "application/json";
    return { status: result.status, body: JSON.stringify(body), headers };
  }
  if (!operation.output) return { status: operation.status ?? 204, body: null, headers: {} };
  return { status: operation.status ?? 200, body: JSON.stringify(result), headers: { "content-type": "application/json" } };
}

/**
 * The hot reads every signed-in page makes (`/api/v1/auth/me`, `/api/v1/user/motd/pending`) are
 * answered before Hono: its request and context objects, router and middleware chain cost about
 * as much CPU again as the read itself, which is cached (bench/hot-reads.mjs, ADR 0026). Only
 * `readsDirectly` operations are taken, and only their successes: the context comes from the same
 * builder, the access tier from the same check and the result from the same call as in the REST
 * adapter. Whatever is not a success (no credential, a refusal, an error, a cookie to set, a HEAD,
 * a body) is handed to Hono's pipeline untouched, which answers it as it answers every other
 * request; a read that failed here is read again there, so refusals and errors have one source.
 */
export function directReads(options: {
  operations: readonly AnyOperation[];
  buildContext: (facts: RequestFacts) => Promise<RequestContext>;
  stamp: RequestStamp;
}): (pipeline: RequestListener) => RequestListener {
  const { buildContext, stamp } = options;
  const routes = new Map<string, AnyOperation>();
  for (const operation of options.operations) if (readsDirectly(operation)) routes.set(operation.path!, operation);

  async function answer(operation: AnyOperation, request: IncomingMessage, response: ServerResponse): Promise<boolean> {
    const headers = nodeRequestHeaders(request);
    const requestId = stamp.requestId(headers.header("x-request-id"));
    const ctx = await buildContext({ method: "GET", headers, socket: request.socket, requestId, setSessionToken: refuseCookieChange });
    checkAccess(operation.access, ctx);
    const answer = answerOf(operation, await callOperation(operation, ctx, {}));
    if (!answer) return false;
    const { status, body, headers: sent } = answer;
    sent["x-request-id"] = requestId;
    sent["x-served-by"] = stamp.servedBy;
    if (body !== null) sent["content-length"] = String(typeof body === "string" ? Buffer.byteLength(body) : body.byteLength);
    response.writeHead(status, sent);
    response.end(body ?? undefined);
    return true;
  }

  return (pipeline) => (request, response) => {
    const operation = request.method === "GET" ? routes.get(request.url ?? "") : undefined;
    if (!operation || hasBody(request)) return pipeline(request, response);
    answer(operation, request, response).then(
      (answered) => {
        if (!answered) pipeline(request, response);
      },
      () => {
        if (!response.headersSent) pipeline(request, response);
        else response.destroy();
      },
    );
  };
}
