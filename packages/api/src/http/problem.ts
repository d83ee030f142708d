import {
  AppError,
  isDatabaseUnavailable,
  isStatementCancelled,
  isStorageUnreachable,
  isUnstorableValue,
  outOfSpaceError,
  type ErrorCode,
} from "@meridian/domain/platform";
import type { Logger } from "@meridian/config";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";

const PROBLEM_CONTENT_TYPE = "application/problem+json";

export const codeForStatus: Record<number, ErrorCode> = {
  400: "VALIDATION_FAILED",
  401: "UNAUTHENTICATED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  408: "REQUEST_TIMEOUT",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  429: "RATE_LIMITED",
};

/** How long a client is asked to wait when PostgreSQL gave this process no connection. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;
/** How long a client is asked to wait when the object store could not be reached. */
const STORAGE_RETRY_AFTER_SECONDS = 5;

/** Any thrown value becomes an AppError; anything unexpected becomes INTERNAL without details. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  // First: the store's socket errors carry the same Node codes as the database's.
  if (isStorageUnreachable(error))
    return new AppError("SERVICE_UNAVAILABLE", "The file storage is unavailable at the moment; try again shortly", {
      retryAfterSeconds: STORAGE_RETRY_AFTER_SECONDS,
      cause: error,
    });
  if (isDatabaseUnavailable(error))
    return new AppError("SERVICE_UNAVAILABLE", "The database has no connection for this request at the moment; try again shortly", {
      retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
      cause: error,
    });
  const outOfSpace = outOfSpaceError({ error });
  if (outOfSpace) return outOfSpace;
  if (isStatementCancelled(error))
    return new AppError("SERVICE_UNAVAILABLE", "The request's database work took too long and was stopped; try again shortly", {
      retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
      cause: error,
    });
  if (isUnstorableValue(error))
    return new AppError(
      "VALIDATION_FAILED",
      "A value in the request cannot be stored: a NUL character, half of a UTF-16 surrogate pair, or a date or number out of range",
      { cause: error },
    );
  if (error instanceof HTTPException) {
    const code = codeForStatus[error.status];
    if (code) {
      const detail = error.status === 400 && /json/i.test(error.message) ? "The request body is not valid JSON" : error.message || undefined;
      return new AppError(code, detail);
    }
  }
  return new AppError("INTERNAL", "An unexpected error occurred; quote the request id when reporting it", { cause: error });
}

export function problemBody(error: AppError, instance?: string) {
  return {
    type: `https://meridian.dev/problems/${error.code.toLowerCase().replace(/_/g, "-")}`,
    title: error.title,
    status: error.status,
    detail: error.message,
    code: error.code,
    ...(instance ? { instance } : {}),
    ...(error.errors ? { errors: error.errors } : {}),
  };
}

/** A refusal's or error's answer: status, headers and the problem+json body, whichever face sends it (Hono's or the direct reads'). */
export function problemAnswer(error: AppError, where: { requestId: string | undefined; path: string }) {
  const headers: Record<string, string> = { "content-type": PROBLEM_CONTENT_TYPE };
  for (const [name, value] of Object.entries(error.headers)) headers[name.toLowerCase()] = value;
  if (where.requestId) headers["x-request-id"] = where.requestId;
  return { status: error.status, headers, body: JSON.stringify(problemBody(error, where.path)) };
}

export function problemResponse(c: Context, error: AppError): Response {
  const { status, headers, body } = problemAnswer(error, { requestId: c.get("requestId" as never) as string | undefined, path: c.req.path });
  return new Response(body, { status, headers });
}

/** Any thrown value as the AppError it is answered with; an unexpected one is logged with the request, since its answer says nothing. */
export function reportedAppError(error: unknown, logger: Logger, request: { requestId: string | undefined; method: string; path: string }): AppError {
  const appError = toAppError(error);
  if (appError.code === "INTERNAL") logger.error({ err: error, ...request }, "unexpected error");
  // Refused by PostgreSQL, not by the operation's schema: a field whose schema lacks a rule.
  else if (isUnstorableValue(error)) logger.warn({ err: error, ...request }, "a value reached PostgreSQL that no schema refused");
  return appError;
}
