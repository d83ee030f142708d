import { TRPCClientError } from "@trpc/client";
import type { AppRouter } from "../trpc";

export interface FieldError {
  path: string;
  message: string;
}

/** What the UI needs from any failure: a stable code, a message and per-field messages. */
export interface ProblemSummary {
  code: string | null;
  message: string;
  fieldErrors: Record<string, string>;
}

const friendlyMessages: Record<string, string> = {
  ACCOUNT_DISABLED: "This account is disabled. Ask a server administrator to enable it.",
  EMAIL_TAKEN: "An account with this email already exists.",
  INVALID_CREDENTIALS: "The email or password is not correct.",
  INVALID_TOKEN: "This link is invalid or has expired.",
  LAST_SERVER_ADMIN: "This would leave the server without an enabled server administrator. Make someone else a server administrator first.",
  RATE_LIMITED: "Too many attempts. Please wait a moment and try again.",
  SIGNUP_DISABLED: "Sign-up is disabled on this server.",
  UNAUTHENTICATED: "Your session has ended. Please sign in again.",
  VALIDATION_FAILED: "Please check the highlighted fields.",
};

const sentenceCase = (text: string) => (text ? text[0]!.toUpperCase() + text.slice(1) : text);

function fieldErrorMap(errors: ReadonlyArray<FieldError> | null | undefined): Record<string, string> {
  const map: Record<string, string> = {};
  for (const error of errors ?? []) if (!(error.path in map)) map[error.path] = sentenceCase(error.message);
  return map;
}

/**
 * The problem+json body of a tRPC call the server refused before tRPC saw it (a restore holding
 * writes, a cross-site cookie, a body too large, a database without a connection): tRPC's client
 * cannot read it as its own envelope, but keeps it as `meta.responseJSON`.
 */
function problemOf(error: TRPCClientError<AppRouter>): { code: string; detail: string; errors?: FieldError[] } | null {
  const body = (error.meta as { responseJSON?: unknown } | undefined)?.responseJSON;
  if (!body || typeof body !== "object" || Array.isArray(body)) return null;
  const { code, detail, errors } = body as Record<string, unknown>;
  if (typeof code !== "string" || typeof detail !== "string") return null;
  return { code, detail, errors: Array.isArray(errors) ? (errors as FieldError[]) : undefined };
}

export function summarizeError(error: unknown): ProblemSummary {
  if (error instanceof TRPCClientError) {
    const data = (error as TRPCClientError<AppRouter>).data;
    const problem = data ? null : problemOf(error as TRPCClientError<AppRouter>);
    if (problem) return { code: problem.code, message: problem.detail, fieldErrors: fieldErrorMap(problem.errors) };
    const code = data?.code ?? null;
    return {
      code,
      message: (code && friendlyMessages[code]) || error.message || "Something went wrong.",
      fieldErrors: fieldErrorMap(data?.errors),
    };
  }
  if (error instanceof ProblemError) return { code: error.code, message: error.message, fieldErrors: fieldErrorMap(error.errors) };
  return { code: null, message: error instanceof Error && error.message ? error.message : "Something went wrong.", fieldErrors: {} };
}

/** An RFC 9457 problem+json answer from a REST call. */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | null,
    message: string,
    readonly errors: FieldError[] = [],
  ) {
    super(message);
    this.name = "ProblemError";
  }

  static async fromResponse(response: Response): Promise<ProblemError> {
    let body: { code?: string; detail?: string; title?: string; errors?: FieldError[] } = {};
    try {
      body = await response.json();
    } catch {
      // Not JSON (a proxy error page, for example): fall back to the status line.
    }
    const message = body.detail || body.title || `Request failed (${response.status})`;
    return new ProblemError(response.status, body.code ?? null, message, body.errors ?? []);
  }
}
