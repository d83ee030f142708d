import { fieldMessage, UNKNOWN_FIELD } from "@meridian/rules";

/**
 * The one error type of Meridian. Each code has a fixed HTTP status; REST turns it into
 * problem+json and tRPC into `data.code`, both in exactly one place.
 */
export const errorCodes = {
  VALIDATION_FAILED: { status: 400, title: "Validation failed" },
  NO_RECIPIENTS: { status: 400, title: "No recipients" },
  REASON_REQUIRED: { status: 400, title: "Reason required" },
  INVALID_TOKEN: { status: 400, title: "Invalid or expired token" },
  UNKNOWN_DESTINATION: { status: 400, title: "Not a storage destination of the project's organization" },
  FILTER_NOT_AVAILABLE: { status: 400, title: "A filter the observation asks for is not at its observatory" },
  UNAUTHENTICATED: { status: 401, title: "Authentication required" },
  INVALID_CREDENTIALS: { status: 401, title: "Invalid credentials" },
  FORBIDDEN: { status: 403, title: "Forbidden" },
  INVITATION_EMAIL_MISMATCH: { status: 403, title: "Invitation is for another address" },
  FORBIDDEN_TRANSITION: { status: 403, title: "Not a move this caller may make" },
  SIGNUP_DISABLED: { status: 403, title: "Signup is disabled" },
  CROSS_ORIGIN_REQUEST: { status: 403, title: "Cross-origin request refused" },
  ACCOUNT_DISABLED: { status: 403, title: "Account disabled" },
  NOT_FOUND: { status: 404, title: "Not found" },
  INVITATION_EXPIRED: { status: 410, title: "Invitation no longer valid" },
  USER_NOT_FOUND: { status: 404, title: "User not found" },
  FILE_MISSING: { status: 404, title: "The file's bytes are missing from storage" },
  TARGET_NOT_FOUND: { status: 404, title: "Target not found" },
  METHOD_NOT_ALLOWED: { status: 405, title: "Method not allowed" },
  REQUEST_TIMEOUT: { status: 408, title: "Request timeout" },
  EMAIL_TAKEN: { status: 409, title: "Email already registered" },
  CONFLICT: { status: 409, title: "Conflict" },
  INVALID_TRANSITION: { status: 409, title: "Invalid transition" },
  HELLO_REQUIRED: { status: 409, title: "Say hello first" },
  SCAN_RUNNING: { status: 409, title: "A scan of this kind is running" },
  DOCUMENT_CHANGED: { status: 409, title: "The document changed since the scan" },
  NOT_AUTO_FIXABLE: { status: 409, title: "This issue cannot be repaired automatically" },
  REPAIR_RUNNING: { status: 409, title: "A bulk repair of this scan is running" },
  CLEANUP_RUNNING: { status: 409, title: "An observation cleanup is running" },
  BACKUP_RUNNING: { status: 409, title: "A backup is running" },
  BACKUP_NOT_READY: { status: 409, title: "The backup is not finished" },
  BACKUP_TOO_NEW: { status: 409, title: "The backup is from a newer schema version" },
  RESTORE_RUNNING: { status: 409, title: "A restore is running" },
  JOB_FINISHED: { status: 409, title: "The job has already ended" },
  SHORT_NAME_TAKEN: { status: 409, title: "Short name taken" },
  ALREADY_MEMBER: { status: 409, title: "Already a member" },
  NOT_A_MEMBER: { status: 409, title: "Not a member" },
  OWNER_PERMISSIONS_FIXED: { status: 409, title: "The owner's permissions are fixed" },
  OWNER_ROLE_FIXED: { status: 409, title: "The owner's role is fixed" },
  OWNER_CANNOT_BE_REMOVED: { status: 409, title: "The owner cannot be removed" },
  OWNING_ORGANIZATION_CANNOT_BE_REMOVED: { status: 409, title: "The owning organization cannot be removed" },
  ORGANIZATION_NOT_EMPTY: { status: 409, title: "The organization still owns observatories or projects" },
  PROJECT_NOT_ACTIVE: { status: 409, title: "The project is not active" },
  OBSERVATORY_BUSY: { status: 409, title: "The observatory is running an observation" },
  OBSERVATORY_REMOVED: { status: 409, title: "The observatory was removed" },
  NOT_A_FRAME: { status: 409, title: "The file is not a frame" },
  NOT_SOLVED: { status: 409, title: "The frame has no plate solution" },
  PROJECT_NOT_ARCHIVED: { status: 409, title: "Only archived projects can be deleted" },
  LAST_SERVER_ADMIN: { status: 409, title: "The last server administrator" },
  PAYLOAD_TOO_LARGE: { status: 413, title: "Payload too large" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: "Unsupported media type" },
  RATE_LIMITED: { status: 429, title: "Too many requests" },
  INTERNAL: { status: 500, title: "Internal server error" },
  SERVICE_UNAVAILABLE: { status: 503, title: "Service unavailable" },
  MAINTENANCE: { status: 503, title: "Down for maintenance" },
  INSUFFICIENT_STORAGE: { status: 507, title: "Insufficient storage" },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof errorCodes;

export interface FieldError {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors: FieldError[] | undefined;
  /** Extra response headers: Retry-After (from `retryAfterSeconds`), Connection. */
  readonly headers: Record<string, string>;
  /** A refusal for now: whole seconds to wait before trying again (HTTP's Retry-After, the socket's `retryAfter`). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCode,
    detail?: string,
    options: { errors?: FieldError[]; headers?: Record<string, string>; retryAfterSeconds?: number; cause?: unknown; status?: number } = {},
  ) {
    super(detail ?? errorCodes[code].title, { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    // Only where docs/api-contract.md pairs a code with another status (a wrong current password is
    // 403 INVALID_CREDENTIALS, not a failed sign-in's 401).
    this.status = options.status ?? errorCodes[code].status;
    this.errors = options.errors;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.headers = { ...options.headers, ...(options.retryAfterSeconds ? { "retry-after": String(options.retryAfterSeconds) } : {}) };
  }

  get title(): string {
    return errorCodes[this.code].title;
  }
}

export const isAppError = (error: unknown): error is AppError => error instanceof AppError;

/**
 * Turns zod issues into the `errors: [{path, message}]` of docs/api-contract.md, each message a sentence: the
 * field's label and the predicate from the one error map (`validation/messages.ts`).
 */
export function validationError(options: {
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string; code?: string; keys?: ReadonlyArray<string> }>;
  detail?: string;
}): AppError {
  const { issues, detail = "The request is not valid" } = options;
  return new AppError("VALIDATION_FAILED", detail, {
    // An unknown field is reported at its own path, so a client can point at it.
    errors: issues.flatMap((issue) =>
      issue.code === "unrecognized_keys" && issue.keys
        ? issue.keys.map((key) => ({ path: [...issue.path, key].map(String).join("."), message: `“${key}” ${UNKNOWN_FIELD}.` }))
        : [fieldError({ path: issue.path, predicate: issue.message })],
    ),
  });
}

/** One entry of `errors[]`: the path as the client sent it and a sentence about that field. */
export function fieldError({ path, predicate }: { path: ReadonlyArray<PropertyKey> | string; predicate: string }): { path: string; message: string } {
  const segments = typeof path === "string" ? path.split(".").filter(Boolean) : path;
  return { path: segments.map(String).join("."), message: fieldMessage(segments, predicate) };
}
