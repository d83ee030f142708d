import type { ServerResponse } from "node:http";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, Next } from "hono";
import { trpcServer } from "@hono/trpc-server";
import { SERVER_VERSION } from "@meridian/config";
import { MAX_TRPC_BATCH } from "@meridian/rules";
import { noteDatabaseOutOfSpace } from "@meridian/domain/health";
import { AppError } from "@meridian/domain/platform";
import { refuseWritesDuringMaintenance } from "@meridian/domain/system";
import type { ApiServices } from "../context";
import { appRouter } from "../trpc/app-router";
import type { ProcedureMeta, TrpcContext } from "../trpc/init";
import type { AnyOperation } from "../operations/define-operation";
import { mountApiDocs } from "./api-docs";
import { mountObservatoryDocs } from "./observatory-docs";
import { createRouter, type AppEnv } from "./env";
import { DatabaseAvailability, DATABASE_DOWN_RETRY_AFTER_SECONDS } from "./database-availability";
import { bodyTooSlow, withBoundedBodyRate } from "./body-rate";
import { MAX_JSON_BODY_BYTES, trpcBodyLimit } from "./json-body-limit";
import { problemResponse, reportedAppError } from "./problem";
import { contextBuilder, requestContext } from "./request-context";
import { directReads, type RequestListener } from "./direct-reads";
import { requestDeadline } from "./request-deadline";
import { requestStamp } from "./request-stamp";
import { restRoutes } from "../operations/rest-adapter";
import { allOperations } from "../operations";
import { healthOperations } from "../operations/health";

/** Routes that read a raw body and enforce their own limit. */
const RAW_BODY_ROUTES = new Set(["/api/v1/user/avatar"]);
/** Observation files stream to storage under their own cap (MAX_UPLOAD_BYTES). */
const STREAMED_UPLOAD = /^\/observations\/[^/]+\/files$/;
const BODYLESS_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

const databaseDown = () =>
  new AppError("SERVICE_UNAVAILABLE", "The database cannot be reached at the moment; try again shortly", {
    retryAfterSeconds: DATABASE_DOWN_RETRY_AFTER_SECONDS,
  });

export interface ApiHttp {
  /** Every route: REST, tRPC, the API documents. */
  app: OpenAPIHono<AppEnv>;
  /** Node's listener for the app (`pipeline`, from @hono/node-server) with the direct reads (`direct-reads.ts`) in front of it. */
  withDirectReads(pipeline: RequestListener): RequestListener;
}

export function createApiApp(services: ApiServices): ApiHttp {
  const { deps } = services;
  const app = createRouter();
  const stamp = requestStamp(deps);
  const buildContext = contextBuilder(services);
  const operations = [...allOperations, ...healthOperations(services)];

  const database = new DatabaseAvailability(deps.sql, deps.logger);
  app.onError((error, c) => {
    noteDatabaseOutOfSpace({ deps, error });
    database.noteFailure(error);
    return problemResponse(c, reportedAppError(error, deps.logger, { requestId: c.get("requestId"), method: c.req.method, path: c.req.path }));
  });

  // One middleware for what every request needs before its route (each hop through Hono's chain is
  // a measurable share of a cached read's CPU). Only requests that can carry a body are measured: the
  // limit middleware builds the full Request object, which a GET never needs. While a restore replaces
  // the data, every write waits outside: what it wrote would be thrown away. Only the operations
  // marked `allowedDuringMaintenance` pass (the way out, and signing in to it).
  //
  // It also names the request (`X-Request-Id`) and the process (`X-Served-By`), on Node's response
  // itself, which merges them into whatever Hono writes: setting them on `c.res` turned every
  // response's headers into a Headers object, a measurable share of a cached read's CPU. The app is
  // only served through Node (start-server.ts), so there always is one.
  const attachContext = requestContext(buildContext);
  const deadline = requestDeadline(deps.env.REQUEST_TIMEOUT_MS);
  const allowedDuringMaintenance = maintenanceExemptions(allOperations);
  const admit = async (c: Context<AppEnv>, next: Next) => {
    if (!BODYLESS_METHODS.has(c.req.method) && !allowedDuringMaintenance(c.req.method, c.req.path))
      await refuseWritesDuringMaintenance({ deps, retry: "changes are refused until it ends. Try again in a few minutes.", believeRecent: true });
    await next();
  };
  const prepare = async (c: Context<AppEnv>, next: Next) => {
    await attachContext(c);
    await admit(c, next);
  };
  const trpcLimit = trpcBodyLimit(trpcNeedsCredentials());
  /** A tRPC batch: credentials first, then its size (401 before 413, as REST), then the rest. */
  const prepareTrpc = async (c: Context<AppEnv>, next: Next) => {
    await attachContext(c);
    return trpcLimit(c, () => admit(c, next));
  };
  const bodyRate = { minBytesPerSecond: deps.env.MIN_BODY_BYTES_PER_SECOND, graceMs: deps.env.BODY_RATE_GRACE_MS };
  /** Every body (JSON, raw, upload) keeps a least rate (body-rate.ts): else 408, whatever its reader made of it. */
  const boundRate = async (c: Context<AppEnv>, next: () => Promise<unknown>): Promise<Response | undefined> => {
    const bounded = withBoundedBodyRate(c.req.raw, bodyRate);
    c.req.raw = bounded.request;
    // What the route answered: set on `c`, or returned (an early refusal, the deadline's 503).
    const answered = await next();
    if (!bounded.tooSlow()) return answered instanceof Response ? answered : undefined;
    c.res = undefined;
    c.res = problemResponse(c, bodyTooSlow(bodyRate));
    return c.res;
  };
  const route = async (c: Context<AppEnv>, next: Next) => {
    const requestId = stamp.requestId(c.req.header("x-request-id"));
    c.set("requestId", requestId);
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    outgoing?.setHeader("x-request-id", requestId);
    outgoing?.setHeader("x-served-by", stamp.servedBy);
    // (No named closure per request: tsx names each one with a defineProperty.)
    // While PostgreSQL is known to be down, refused as soon as a try of it fails (database-availability.ts); the health checks still say so themselves.
    if (database.down && !c.req.path.startsWith("/api/health") && !(await database.admits())) return problemResponse(c, databaseDown());
    // An upload streams its body for as long as it takes: UPLOAD_IDLE_TIMEOUT_MS bounds it instead of the deadline.
    if (STREAMED_UPLOAD.test(c.req.path)) return void (await prepare(c, next));
    if (BODYLESS_METHODS.has(c.req.method) || RAW_BODY_ROUTES.has(c.req.path)) return deadline(c, () => prepare(c, next));
    // A REST operation measures its JSON body after its credential check (rest-adapter.ts): 401 before 413.
    if (!c.req.path.startsWith("/trpc")) return deadline(c, () => prepare(c, next));
    return deadline(c, () => prepareTrpc(c, next));
  };
  app.use(async (c, next) => {
    if (!BODYLESS_METHODS.has(c.req.method)) return boundRate(c, () => route(c, next));
    return route(c, next);
  });

  app.route("/", restRoutes(operations));

  const handleTrpc = trpcServer({
    router: appRouter,
    endpoint: "/trpc",
    // Larger batches are 400: one request's procedures run at once.
    maxBatchSize: MAX_TRPC_BATCH,
    onError: ({ error }) => database.noteFailure(error.cause ?? error),
    createContext: (_options, c) => c.get("ctx") satisfies TrpcContext as unknown as Record<string, unknown>,
    // A refusal's headers (Retry-After of a database without a connection, of a rate limit) as REST sends them.
    responseMeta: ({ errors }) => {
      const headers = new Headers();
      for (const error of errors)
        if (error.cause instanceof AppError) for (const [name, value] of Object.entries(error.cause.headers)) headers.set(name, value);
      return { headers };
    },
  });
  app.use("/trpc/*", async (c, next) => {
    const response = await handleTrpc(c, next);
    // tRPC answers with a Response of its own, without the headers set on `c` meanwhile:
    // carry over the session cookie that auth.signup/login set and auth.logout clears.
    const cookies = c.res.headers.getSetCookie();
    if (!response || cookies.length === 0) return response;
    const withCookies = new Response(response.body, response);
    for (const cookie of cookies) withCookies.headers.append("set-cookie", cookie);
    return withCookies;
  });

  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "A session token from login/signup or an API key",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "cookie", { type: "apiKey", in: "cookie", name: "session" });

  const document = (origin: string) =>
    app.getOpenAPI31Document({
      openapi: "3.1.0",
      info: {
        title: "Meridian API",
        version: SERVER_VERSION,
        description:
          "REST face of Meridian. Errors are RFC 9457 problem+json with a stable `code`. Lists are `{items, nextCursor}`. " +
          "Cookie-authenticated requests that change state must carry an Origin (or Referer) of this site; bearer tokens are exempt. " +
          `JSON bodies are capped at ${MAX_JSON_BODY_BYTES} bytes (413). Unknown fields in JSON bodies are refused (400). ` +
          "A protected operation answers 401 before it looks at the body, its size included; signup and login answer 413. " +
          "Any body averaging less than `MIN_BODY_BYTES_PER_SECOND` (default 1024) once `BODY_RATE_GRACE_MS` (default 20 s) " +
          "passed is answered 408 REQUEST_TIMEOUT and the connection closes; only the time spent waiting on the client counts. " +
          "A body past its limit (or sent to a protected operation without a credential) is answered as soon as that is known, " +
          "and the server reads and drops the rest of it (up to 64 MiB, 30 s) before it closes the connection, so the client reads " +
          "the 413 (or 401); a keep-alive connection stays open when the declared body is within that. A request not answered " +
          "within `REQUEST_TIMEOUT_MS` (default 30 s; uploads excepted: they are bounded by `UPLOAD_IDLE_TIMEOUT_MS`) is answered " +
          "503 SERVICE_UNAVAILABLE with Retry-After and its database work is cancelled; so is one whose single database statement " +
          "outlasts the server's statement timeout. " +
          "While the server's PostgreSQL is known to be unreachable, requests (health checks excepted) are answered 503 " +
          "SERVICE_UNAVAILABLE with Retry-After: 1 as soon as one try of it fails; the first request after it is back is served. " +
          "WebSocket close codes (`/ws`, `/ws/observatory`): 1001 the server is stopping (connect again later), 1011 the connection " +
          "could not be set up, 1012 (`/ws` only) events meant for the socket may have been missed while the server's event feed " +
          "reconnected (connect again and read again what you show), 4401 the credential no longer works, 4408 no message for the " +
          "heartbeat timeout, 4409 replaced by a newer connection with the same observatory (do not reconnect), 4413 more sent to " +
          "the client and not read than the server holds (`WS_SEND_BUFFER_LIMIT_BYTES`; read, then connect again), " +
          "4429 more messages waiting than allowed (`PLUGIN_QUEUE_LIMIT`). A user holds at most `WS_CONNECTIONS_PER_USER` (default 20) " +
          "`/ws` sockets on one server process: the upgrade beyond it is answered 429 RATE_LIMITED (problem+json, Retry-After) and " +
          "the sockets already open stay open. A refused upgrade is answered like any refused request (problem+json: 401, 404, 429, " +
          "500, and 503 with Retry-After when the database has no connection to give). " +
          "Any write the database or object storage has no room for (a full disk: PostgreSQL's disk_full, a store's 507) is answered " +
          "507 INSUFFICIENT_STORAGE with Retry-After; nothing of it was kept, reads go on being served, and the same write succeeds " +
          "once space is freed. PostgreSQL out of memory or of connections is 503 SERVICE_UNAVAILABLE with Retry-After. " +
          "A signed-in account or observatory key may make at most `API_WRITES_PER_MINUTE` (default 1,200) changes (writes, tRPC " +
          "mutations) a minute on one server process, with a burst of as many: beyond it 429 RATE_LIMITED with Retry-After. Each " +
          "counted REST write answers RateLimit-Limit, RateLimit-Remaining (whole writes left) and RateLimit-Reset (seconds until " +
          "the count is full again). A tRPC " +
          `request batches at most ${MAX_TRPC_BATCH} procedures (400 beyond), each counted as the operation it runs. A bulk operation counts ` +
          "one change per item it names; one naming more items than `API_WRITES_PER_MINUTE` could never pass and is refused 413 " +
          "PAYLOAD_TOO_LARGE, with nothing changed. An observatory's keys share one count.",
        license: { name: "Apache-2.0", url: "https://www.apache.org/licenses/LICENSE-2.0" },
      },
      // PUBLIC_URL, else the address the request reached: a generated client calls this very server.
      servers: [{ url: origin, description: "This Meridian server" }],
    });
  app.get("/api/openapi.json", (c) => c.json(document(c.get("ctx").linkOrigin)));
  mountObservatoryDocs(app);
  mountApiDocs(app);

  app.notFound((c) => {
    const allowed = allowedMethods(app.routes, c.req.path);
    // A handler of this very method may answer "not found" itself (c.notFound()): that is a 404.
    if (allowed.length > 0 && !allowed.includes(c.req.method)) {
      const error = new AppError("METHOD_NOT_ALLOWED", `${c.req.method} is not allowed here; use ${allowed.join(", ")}`, {
        headers: { allow: allowed.join(", ") },
      });
      return problemResponse(c, error);
    }
    return problemResponse(c, new AppError("NOT_FOUND", `No route for ${c.req.method} ${c.req.path}`));
  });

  return { app, withDirectReads: directReads({ operations, buildContext, stamp, logger: deps.logger, timeoutMs: deps.env.REQUEST_TIMEOUT_MS }) };
}

/** Methods registered for a concrete path, to tell 405 from 404. */
function allowedMethods(routes: ReadonlyArray<{ method: string; path: string }>, path: string): string[] {
  const methods = new Set<string>();
  for (const route of routes) {
    if (route.method === "ALL" || route.path.includes("*")) continue;
    const pattern = new RegExp(`^${route.path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/:[A-Za-z_]\w*/g, "[^/]+")}/?$`);
    if (pattern.test(path)) methods.add(route.method);
  }
  if (methods.has("GET")) methods.add("HEAD");
  return [...methods].sort();
}

const decodedOrAsIs = (name: string) => {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
};

/** Whether a tRPC call (`/trpc/a.b,c.d`) names a procedure that is not public (an unknown name counts as one). */
function trpcNeedsCredentials() {
  const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { meta?: ProcedureMeta } }>;
  const open = new Set(Object.entries(procedures).flatMap(([name, procedure]) => (procedure._def.meta?.access === "public" ? [name] : [])));
  return (path: string) =>
    path
      .slice("/trpc/".length)
      .split(",")
      .some((name) => !open.has(decodedOrAsIs(name)));
}

/**
 * Whether a request is one of the writes allowed during maintenance: a REST operation marked so
 * (by method and path), or a tRPC call (`/trpc/a.b,c.d`) whose every procedure is marked so.
 */
function maintenanceExemptions(operations: readonly AnyOperation[]) {
  const rest = operations
    .filter((operation) => operation.allowedDuringMaintenance && operation.path)
    .map((operation) => ({
      method: operation.method.toUpperCase(),
      path: new RegExp(`^${operation.path!.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`),
    }));
  // At run time `_def.procedures` is flat, keyed by the full dotted name (its type is the nested record).
  const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { meta?: ProcedureMeta } }>;
  const trpc = new Set(Object.entries(procedures).flatMap(([name, procedure]) => (procedure._def.meta?.allowedDuringMaintenance ? [name] : [])));
  return (method: string, path: string) => {
    if (path.startsWith("/trpc/"))
      return path
        .slice("/trpc/".length)
        .split(",")
        .every((name) => trpc.has(decodeURIComponent(name)));
    return rest.some((entry) => entry.method === method && entry.path.test(path));
  };
}
