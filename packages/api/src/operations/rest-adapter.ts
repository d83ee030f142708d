import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import { actorOfPrincipal } from "@meridian/domain/platform";
import type { Context, MiddlewareHandler } from "hono";
import { checkAccess } from "../http/auth-guard";
import type { RequestContext } from "../context";
import { createRouter, type AppEnv } from "../http/env";
import { jsonBodyLimit } from "../http/json-body-limit";
import { bearerSecurity, errorResponses, jsonBody, jsonResponse } from "../http/openapi-shared";
import { responseMismatch } from "../http/response-check";
import { serializedThroughSchema } from "../http/response-serializer";
import { chargesWrites, chargeWrites, writeAllowanceHeaders } from "./charge-writes";
import { Reply, type AnyOperation } from "./define-operation";

/**
 * The tiers refused by who the caller is (no credential, a user, an administrator, an observatory's
 * key), checked after the credential check and before the body is measured (`jsonBodyLimit`) or
 * validated, so a refused caller learns nothing of the input: 401 comes before 413 and 400.
 */
const tierGuard =
  (access: AnyOperation["access"]): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    checkAccess(access, c.get("ctx"));
    await next();
  };

/** What runs before an operation's validators: its guard, then (for a JSON body) the size limit. */
function routeMiddleware(operation: AnyOperation): MiddlewareHandler<AppEnv>[] {
  const middleware: MiddlewareHandler<AppEnv>[] = [];
  if (operation.access !== "public") middleware.push(tierGuard(operation.access));
  // A raw body (`readBody`) has a limit of its own.
  if (!operation.readBody) middleware.push(jsonBodyLimit as MiddlewareHandler<AppEnv>);
  return middleware;
}

function routeOf(operation: AnyOperation): RouteConfig {
  const request: NonNullable<RouteConfig["request"]> = {};
  if (operation.params) request.params = operation.params;
  if (operation.query) request.query = operation.query;
  if (operation.requestBody) request.body = operation.requestBody;
  else if (operation.body) request.body = jsonBody(operation.body);
  const description = operation.outputDescription ?? "Done";
  const success = operation.output ? jsonResponse(operation.output, description) : { description };
  return createRoute({
    operationId: operation.operationId,
    method: operation.method,
    path: operation.path!,
    tags: operation.tags,
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    // An empty requirement says "no credentials needed" explicitly, as linters ask.
    security: operation.access === "public" ? [] : bearerSecurity,
    middleware: routeMiddleware(operation),
    ...(Object.keys(request).length > 0 ? { request } : {}),
    responses: {
      [operation.status ?? 200]: success,
      ...(chargesWrites(operation) && operation.access !== "public" ? { 429: errorResponses[429] } : {}),
      ...operation.responses,
    },
  });
}

const validated = (c: Context<AppEnv>, target: string) => (c.req.valid as (target: string) => Record<string, unknown>).call(c.req, target);

/** The handler's input from the validated parts of the request, shaped as the tRPC procedure takes it. */
async function inputOf(operation: AnyOperation, c: Context<AppEnv>) {
  const params = operation.params ? validated(c, "param") : {};
  const query = operation.query ? validated(c, "query") : {};
  let body: unknown = undefined;
  if (operation.readBody) body = await operation.readBody(c.req, c.get("ctx"));
  else if (operation.body) body = validated(c, "json");
  if (body === undefined) return { ...params, ...query };
  return operation.bodyKey ? { ...params, ...query, [operation.bodyKey]: body } : { ...params, ...query, ...(body as object) };
}

/**
 * A body of the declared success status must be what the operation's `output` declares (JSON
 * bodies only: streams and bytes are not looked at); tests turn this on (`VALIDATE_RESPONSES`).
 */
function checkResponse(operation: AnyOperation, result: unknown) {
  if (!operation.output) return;
  const reply = result instanceof Reply ? result : undefined;
  if (reply && (reply.status !== (operation.status ?? 200) || !(typeof reply.body === "string" || (typeof reply.body === "object" && reply.body !== null))))
    return;
  if (reply?.body instanceof ReadableStream || reply?.body instanceof Uint8Array) return;
  const mismatch = responseMismatch(operation.output, reply ? reply.body : result);
  if (mismatch) throw new Error(`The response of ${operation.operationId} does not match its declared output: ${mismatch}`);
}

/**
 * Runs an operation for a caller its access tier admits (`checkAccess`, done before the input
 * was read) and returns what it answered, checked against its declared output when tests ask.
 */
export async function callOperation(operation: AnyOperation, ctx: RequestContext, input: unknown): Promise<unknown> {
  const principal = ctx.principal;
  const actor = principal ? actorOfPrincipal(principal) : undefined;
  chargeWrites(operation, ctx, input);
  const result: unknown = await operation.handle({ ctx, actor, principal, observatory: ctx.observatory, input });
  if (ctx.deps.env.VALIDATE_RESPONSES) checkResponse(operation, result);
  return result;
}

/** What the REST path sends for an operation's result: its status, body (serialized unless bytes or a stream) and headers. */
export interface RestAnswer {
  status: number;
  body: string | Uint8Array | ReadableStream<Uint8Array> | null;
  headers: Record<string, string>;
}

/**
 * The JSON text of a body the operation's `output` describes (its declared status), serialized through that
 * schema: a field it does not declare stays behind, and one it lacks is a logged 500 (`serializedThroughSchema`).
 */
const serializedOutput = (operation: AnyOperation, body: unknown) => JSON.stringify(serializedThroughSchema(operation.operationId, operation.output, body));

/**
 * The one shaping of a result into a response, for Hono's routes and the direct reads alike: a
 * `Reply` keeps its status and headers (names in lower case) and a body of text, bytes or a stream
 * as it is; any other body, or a bare result, is JSON, through the output schema when it is the
 * declared response. A body of text is one serialized once and kept (the first page of
 * observations, pending announcements): it goes as it is, as tests check it (`VALIDATE_RESPONSES`).
 */
export function restAnswer(operation: AnyOperation, result: unknown): RestAnswer {
  if (!(result instanceof Reply)) {
    if (!operation.output) return { status: operation.status ?? 204, body: null, headers: {} };
    return { status: operation.status ?? 200, body: serializedOutput(operation, result), headers: { "content-type": "application/json" } };
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers as Record<string, string>)) headers[name.toLowerCase()] = value;
  const body: unknown = result.body;
  if (typeof body === "string" || body instanceof Uint8Array || body instanceof ReadableStream || body === null)
    return { status: result.status, body: body as RestAnswer["body"], headers };
  headers["content-type"] ??= "application/json";
  const declared = operation.output && result.status === (operation.status ?? 200);
  return { status: result.status, body: declared ? serializedOutput(operation, body) : JSON.stringify(body), headers };
}

/** REST routes for operations: the OpenAPI entry and the handler both come from the one definition. */
export function restRoutes(operations: readonly AnyOperation[]) {
  const router = createRouter();
  for (const operation of operations) {
    if (!operation.path) continue;
    router.openapi(routeOf(operation), async (c) => {
      const ctx = c.get("ctx");
      checkAccess(operation.access, ctx);
      const { status, body, headers } = restAnswer(operation, await callOperation(operation, ctx, await inputOf(operation, c)));
      // Only a counted write has an allowance to say: reads keep their headers object as it is.
      return c.body(body as string, status as 200, ctx.writeAllowance ? { ...headers, ...writeAllowanceHeaders(ctx.writeAllowance) } : headers) as never;
    });
  }
  return router;
}
