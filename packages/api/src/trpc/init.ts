import { initTRPC, TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { noteDatabaseOutOfSpace } from "@meridian/domain/health";
import { AppError, validationError } from "@meridian/domain/platform";
import { isServerAdmin } from "@meridian/domain/users";
import { ZodError } from "zod";
import type { RequestContext } from "../context";
import { codeForStatus, toAppError } from "../http/problem";

/** The request's context as REST handlers get it; auth procedures set the cookie through `setSessionToken`. */
export type TrpcContext = RequestContext;

const trpcCodeByStatus: Record<number, TRPCError["code"]> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_SUPPORTED",
  408: "TIMEOUT",
  409: "CONFLICT",
  // tRPC has no 410; the response body still carries data.httpStatus 410 and the Meridian code.
  410: "NOT_FOUND",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  429: "TOO_MANY_REQUESTS",
  503: "SERVICE_UNAVAILABLE",
  // tRPC has no 507; the response body still carries data.httpStatus 507 and INSUFFICIENT_STORAGE.
  507: "SERVICE_UNAVAILABLE",
};

function toAppErrorFromTrpc(error: TRPCError): AppError {
  if (error.cause instanceof ZodError) return validationError({ issues: error.cause.issues });
  // Unparseable input: say so, as REST does, without the parser's message.
  if (error.cause instanceof SyntaxError) return new AppError("VALIDATION_FAILED", "The request input is not valid JSON");
  if (error.cause instanceof AppError) return error.cause;
  if (error.code === "INTERNAL_SERVER_ERROR") return toAppError(error.cause ?? error);
  const code = codeForStatus[getHTTPStatusCodeFromError(error)];
  return code ? new AppError(code, error.message) : toAppError(error);
}

/**
 * Who may call a procedure. Each tier below sets it, and the tier's credential check runs before
 * the procedure's input is parsed, so a signed-out caller learns nothing about the input.
 */
export interface ProcedureMeta {
  access: "public" | "signed-in" | "server-admin";
  /** A mutation served while a restore holds writes (see `allowedDuringMaintenance` of operations). */
  allowedDuringMaintenance?: boolean;
}

const t = initTRPC
  .context<TrpcContext>()
  .meta<ProcedureMeta>()
  .create({
    isDev: false,
    // The same code table as REST: `data.code` is the stable Meridian code; no stack ever leaves.
    errorFormatter({ shape, error, ctx }) {
      if (ctx) noteDatabaseOutOfSpace({ deps: ctx.deps, error: error.cause });
      const appError = toAppErrorFromTrpc(error);
      if (appError.code === "INTERNAL") ctx?.deps.logger.error({ err: error.cause ?? error, requestId: ctx.requestId }, "unexpected error in tRPC procedure");
      return {
        message: appError.message,
        code: shape.code,
        data: { code: appError.code, httpStatus: appError.status, errors: appError.errors ?? null, requestId: ctx?.requestId ?? null },
      };
    },
  });

/** Domain functions throw AppError; give tRPC the matching status instead of a 500. */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.code === "INTERNAL_SERVER_ERROR" && result.error.cause !== undefined) {
    // A domain AppError, or a database that gave no connection (503, as REST answers).
    const cause = toAppError(result.error.cause);
    if (cause.code === "INTERNAL") return result;
    throw new TRPCError({ code: trpcCodeByStatus[cause.status] ?? "INTERNAL_SERVER_ERROR", message: cause.message, cause });
  }
  return result;
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(mapErrors).meta({ access: "public" });

export const authedProcedure = publicProcedure.meta({ access: "signed-in" }).use(({ ctx, next }) => {
  if (!ctx.principal) throw new AppError("UNAUTHENTICATED", "Sign in or send a valid bearer token");
  return next({ ctx: { ...ctx, principal: ctx.principal } });
});

/** Signed in as a server administrator, with `ctx.caller` like callerProcedure. */
export const adminProcedure = authedProcedure.meta({ access: "server-admin" }).use(({ ctx, next }) => {
  if (!isServerAdmin(ctx.principal.user)) throw new AppError("FORBIDDEN", "Server administrators only");
  return next();
});
