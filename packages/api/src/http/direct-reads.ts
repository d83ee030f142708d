import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "@meridian/config";
import type { RequestContext } from "../context";
import type { AnyOperation } from "../operations/define-operation";
import { callOperation, restAnswer, type RestAnswer } from "../operations/rest-adapter";
import { checkAccess } from "./auth-guard";
import { nodeRequestHeaders } from "./credentials";
import { problemAnswer, reportedAppError } from "./problem";
import type { RequestFacts } from "./request-context";
import { pastDeadline, withinDeadline } from "./request-deadline";
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

/** Thrown when a read cannot be answered here, only by the pipeline: it wanted to set the session cookie. */
class PipelineOnly extends Error {}

/** Only sign-in and sign-out set the cookie; a read that tried is answered by the pipeline, which can. */
const refuseCookieChange = (): never => {
  throw new PipelineOnly("a direct read cannot set the session cookie");
};

/** Whether the request presents a credential at all (what `readCredential` reads). */
const hasCredential = (request: IncomingMessage) => request.headers.authorization !== undefined || request.headers.cookie !== undefined;

/** A request that could carry a body goes to the pipeline, which treats it as it treats every other. */
const hasBody = (request: IncomingMessage) => request.headers["transfer-encoding"] !== undefined || (request.headers["content-length"] ?? "0") !== "0";

/** What the REST adapter would send for an operation's result (`restAnswer`), or undefined for a stream, which is the pipeline's to send. */
function answerOf(operation: AnyOperation, result: unknown): Answer | undefined {
  const answer = restAnswer(operation, result);
  if (!(answer.body instanceof ReadableStream)) return answer as Answer;
  answer.body.cancel().catch(() => undefined);
  return undefined;
}

type Answer = Omit<RestAnswer, "body"> & { body: string | Uint8Array | null };

/**
 * The hot reads every signed-in page makes (`/api/v1/auth/me`, `/api/v1/user/motd/pending`) are
 * answered before Hono: its request and context objects, router and middleware chain cost about
 * as much CPU again as the read itself, which is cached (bench/hot-reads.mjs, ADR 0026). Only
 * `readsDirectly` operations are taken; the context comes from the same builder, the access
 * tier from the same check, the result from the same call and a refusal or error from the same
 * problem answer as in Hono's pipeline. A caller without credentials, a HEAD, a query string, a
 * body, a streamed result or a read that would set the cookie is handed to the pipeline untouched.
 * The pipeline's deadline holds here too (`timeoutMs`, REQUEST_TIMEOUT_MS): past it, 503 and the read's queries are given up.
 */
export function directReads(options: {
  operations: readonly AnyOperation[];
  buildContext: (facts: RequestFacts) => Promise<RequestContext>;
  stamp: RequestStamp;
  logger: Logger;
  timeoutMs: number;
}): (pipeline: RequestListener) => RequestListener {
  const { buildContext, stamp, logger, timeoutMs } = options;
  const routes = new Map<string, AnyOperation>();
  for (const operation of options.operations) if (readsDirectly(operation)) routes.set(operation.path!, operation);

  /** Answers the request, or says (false) that the pipeline must, having written nothing. */
  async function answer(operation: AnyOperation, request: IncomingMessage, response: ServerResponse): Promise<boolean> {
    const headers = nodeRequestHeaders(request);
    const requestId = stamp.requestId(headers.header("x-request-id"));
    let reply: Answer | undefined;
    try {
      const outcome = await withinDeadline(timeoutMs, async () => {
        const ctx = await buildContext({ method: "GET", headers, socket: request.socket, requestId, setSessionToken: refuseCookieChange });
        checkAccess(operation.access, ctx);
        return answerOf(operation, await callOperation(operation, ctx, {}));
      });
      if (outcome === "expired") throw pastDeadline(timeoutMs);
      reply = outcome.done;
      if (!reply) return false;
    } catch (error) {
      if (error instanceof PipelineOnly) return false;
      reply = problemAnswer(reportedAppError(error, logger, { requestId, method: "GET", path: operation.path! }), { requestId, path: operation.path! });
    }
    const { status, body, headers: sent } = reply;
    sent["x-request-id"] = requestId;
    sent["x-served-by"] = stamp.servedBy;
    if (body !== null) sent["content-length"] = String(typeof body === "string" ? Buffer.byteLength(body) : body.byteLength);
    response.writeHead(status, sent);
    response.end(body ?? undefined);
    return true;
  }

  return (pipeline) => (request, response) => {
    const operation = request.method === "GET" ? routes.get(request.url ?? "") : undefined;
    // Without any credential, only the public reads (health) are answered here; the refusal of the others is the pipeline's.
    if (!operation || hasBody(request) || (operation.access !== "public" && !hasCredential(request))) return pipeline(request, response);
    answer(operation, request, response).then(
      (answered) => {
        if (!answered) pipeline(request, response);
      },
      (error: unknown) => {
        // Writing the answer failed (the client went away): nothing is left to say on this connection.
        logger.debug({ err: error }, "a direct read could not be written");
        response.destroy();
      },
    );
  };
}
