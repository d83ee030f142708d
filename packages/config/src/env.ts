import path from "node:path";
import { z } from "zod";

const booleanFromString = z.enum(["true", "false", "1", "0", "yes", "no"]).transform((value) => value === "true" || value === "1" || value === "yes");

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value));

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
/**
 * A shared pool holds session locks for as long as they are held (its process's presence, a
 * one-at-a-time job) and a restore reserves up to 4 more for its parallel loads: below 8, a
 * restore could wait for ever for a connection its own process holds.
 */
const MIN_POOL_SIZE = 8;
const poolSize = (fallback: number) => z.coerce.number().int().min(MIN_POOL_SIZE).default(fallback);

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default("0.0.0.0"),
  /** Public origin used for links in emails (unset: the address the server listens on) and for the same-origin check behind proxies. */
  PUBLIC_URL: optionalString,
  /** Names this process in every response's X-Served-By (default: host name and process id). */
  SERVED_BY: optionalString,
  DATA_DIR: z.string().default("./.data"),
  /** `all` runs HTTP and the worker in one process; `server` only HTTP; `worker` only jobs. */
  MERIDIAN_ROLE: z.enum(["all", "server", "worker"]).default("all"),
  DATABASE_URL: optionalString,
  EMBEDDED_POSTGRES_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  MERIDIAN_SYSTEM_DIR: z.string().default("/var/lib/meridian"),
  S3_ENDPOINT: optionalString,
  S3_BUCKET: z.string().default("meridian"),
  S3_REGION: z.string().default("us-east-1"),
  S3_ACCESS_KEY_ID: optionalString,
  S3_SECRET_ACCESS_KEY: optionalString,
  S3_FORCE_PATH_STYLE: booleanFromString.default(true),
  EMBEDDED_S3_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  ADMIN_EMAIL: optionalString,
  ADMIN_PASSWORD: optionalString,
  /** The password `pnpm admin create-admin` gives a new account (read there only). */
  NEW_ADMIN_PASSWORD: optionalString,
  SUPPORT_EMAIL: optionalString,
  MAIL_FROM: z.string().default("Meridian <no-reply@meridian.local>"),
  SMTP_URL: optionalString,
  PUSH_APP_TOKEN: optionalString,
  PUSH_API_URL: z.string().default("https://api.pushover.net/1/messages.json"),
  /** Where deliveries to organizations' Dropbox and Google Drive destinations go (contract defaults; tests point them at local receivers). */
  DROPBOX_API_URL: z.string().default("https://api.dropboxapi.com"),
  DROPBOX_CONTENT_URL: z.string().default("https://content.dropboxapi.com"),
  GOOGLE_OAUTH_URL: z.string().default("https://oauth2.googleapis.com"),
  GOOGLE_DRIVE_URL: z.string().default("https://www.googleapis.com"),
  /**
   * Unset in production: each kind then sends a file in pieces above the contract's size (S3 64 MiB,
   * Dropbox 150 MiB, Drive 8 MiB) in chunks of 8 MiB. Tests set both lower to see the pieces without gigabytes.
   */
  DELIVERY_LARGE_FILE_BYTES: z.coerce.number().int().positive().optional(),
  DELIVERY_CHUNK_BYTES: positiveInt(8 * 1024 * 1024),
  VAPID_PUBLIC_KEY: optionalString,
  VAPID_PRIVATE_KEY: optionalString,
  VAPID_SUBJECT: optionalString,
  SECRETS_KEY: optionalString,
  SIGNUP_ENABLED: booleanFromString.default(true),
  LOGIN_FAILURES_PER_EMAIL: positiveInt(10),
  LOGIN_FAILURES_PER_IP: positiveInt(50),
  /**
   * Every password check costs an argon2 hash (19 MiB, tens of ms of a libuv thread), so all attempts count,
   * successful ones too: sign-ins one client address and one email may make a minute, and as many password
   * changes and reset confirmations (each counted apart, per address and per account). Beyond: 429 RATE_LIMITED.
   */
  LOGIN_ATTEMPTS_PER_IP_PER_MINUTE: positiveInt(30),
  LOGIN_ATTEMPTS_PER_ACCOUNT_PER_MINUTE: positiveInt(10),
  SIGNUPS_PER_IP_PER_HOUR: positiveInt(20),
  PASSWORD_RESETS_PER_EMAIL_PER_HOUR: positiveInt(5),
  /** Invitations one organization, observatory or project may send in an hour (resends included). */
  INVITATIONS_PER_SCOPE_PER_HOUR: positiveInt(50),
  PASSWORD_RESETS_PER_IP_PER_HOUR: positiveInt(20),
  /** Test notifications (the profile's test button: an email and a push) one user may send in an hour. */
  TEST_NOTIFICATIONS_PER_USER_PER_HOUR: positiveInt(5),
  /** Organization, observatory and project announcements delivered by email that one user may create in an hour. */
  EMAIL_ANNOUNCEMENTS_PER_USER_PER_HOUR: positiveInt(10),
  SESSION_TTL_DAYS: positiveInt(30),
  /** Days an email sent or given up stays in the outbox (the daily prune_email_outbox removes it after); pending mail stays until sent. */
  EMAIL_OUTBOX_KEEP_DAYS: positiveInt(30),
  /**
   * Days an audit log entry stays; the daily prune_audit_log removes it after. At least 30, a year unless set: the log answers who
   * changed what, which is asked months later.
   */
  AUDIT_LOG_KEEP_DAYS: z.coerce.number().int().min(30).default(365),
  /**
   * Days an ended announcement (cancelled, or past its expiry) stays in its scope's history, with its recipients; the daily
   * prune_announcements removes it after. At least 30, a year unless set, like the audit log.
   */
  ANNOUNCEMENTS_KEEP_DAYS: z.coerce.number().int().min(30).default(365),
  /** History entries kept per observatory; the daily prune_observatory_history removes older ones. */
  OBSERVATORY_HISTORY_KEEP: positiveInt(100_000),
  /** Finished integrity scans kept, with their issues; the daily prune_integrity_scans removes older ones. */
  INTEGRITY_SCANS_KEEP: positiveInt(100),
  /**
   * Days a finished tracked job's record (GET /api/v1/admin/jobs) stays; the daily prune_tracked_jobs removes it after. At least 7:
   * the minute sweep retries a failed job's release for 7 days, on its record.
   */
  JOBS_KEEP_DAYS: z.coerce.number().int().min(7).default(90),
  /** Trust X-Forwarded-For for the client address (only behind a reverse proxy you control). */
  TRUST_PROXY: booleanFromString.default(false),
  WORKER_CONCURRENCY: positiveInt(4),
  /**
   * How often an idle job runner looks for work nobody announced: a retry or a delayed job coming
   * due, or a job whose NOTIFY was lost. New jobs and freed queues wake runners at once.
   */
  JOBS_POLL_INTERVAL_SECONDS: positiveInt(2),
  /**
   * Connections each worker process keeps open to the SMTP server, and as many recipients' emails
   * (send_email jobs) it sends at once, beside WORKER_CONCURRENCY's other jobs.
   */
  SMTP_POOL_SIZE: positiveInt(8),
  /** Messages one announcement email job has in flight over those connections (1: in claim order). */
  EMAIL_SENDS_IN_FLIGHT: positiveInt(1),
  /**
   * PostgreSQL connections in the shared pool of a server process (and of an `all` one); see
   * databaseConnectionBudget for every connection a process opens.
   */
  DATABASE_POOL_SIZE: poolSize(10),
  /** The shared pool of a worker process: only job bodies use it. */
  WORKER_DATABASE_POOL_SIZE: poolSize(8),
  /**
   * graphile-worker's pool in a process that runs jobs: two clients stay on LISTEN (the job and
   * email runners), the others take and complete jobs for WORKER_CONCURRENCY + SMTP_POOL_SIZE runs.
   */
  JOBS_DATABASE_POOL_SIZE: z.coerce.number().int().min(3).default(6),
  /**
   * The longest one statement of a request may run (PostgreSQL's statement_timeout on a server process's
   * pool); past it the statement is cancelled and the request answered 503 SERVICE_UNAVAILABLE with Retry-After.
   */
  REQUEST_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(20_000),
  /**
   * The longest one statement of a job body may run (statement_timeout on a worker's pool, and on the pool
   * of a process that serves and runs jobs, MERIDIAN_ROLE=all, whose requests REQUEST_TIMEOUT_MS bounds).
   */
  JOB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(86_400_000).default(300_000),
  /**
   * The longest one statement of a backup or restore may run (its snapshot, reader and loading connections):
   * copying a large table is one statement. 0, the default, sets no limit; the job's cancel still stops it.
   */
  BACKUP_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(86_400_000).default(0),
  /**
   * How long a REST or tRPC request may take until its answer is ready; past it the answer is 503
   * SERVICE_UNAVAILABLE with Retry-After and the request's queries are cancelled, which frees their
   * connections. Uploads are bounded by UPLOAD_IDLE_TIMEOUT_MS instead, and a streamed download's body
   * and WebSocket connections by their own idle rules.
   */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  /** How long a process waits for PostgreSQL to accept a new connection before that request answers 503. */
  DATABASE_CONNECT_TIMEOUT_SECONDS: positiveInt(10),
  /**
   * Messages one observatory plugin connection may send a second (a burst of as many is allowed);
   * beyond it a message is answered `error` RATE_LIMITED and not handled.
   */
  PLUGIN_MESSAGES_PER_SECOND: positiveInt(20),
  /** Messages of one plugin connection that may wait to be handled; one more closes it (4429). */
  PLUGIN_QUEUE_LIMIT: positiveInt(100),
  /**
   * Connections one observatory may open a minute on one server process (a bucket of this many, refilling at
   * this rate); the upgrade beyond it is answered 429 RATE_LIMITED with Retry-After. A plugin's backoff opens
   * a handful a minute at most; each costs a key lookup, a claim and history entries.
   */
  OBSERVATORY_CONNECTIONS_PER_MINUTE: positiveInt(20),
  /**
   * Bytes the server may hold for one WebSocket client that does not read what it is sent (beyond
   * what the operating system's socket buffers hold); the next message closes it instead (4413).
   */
  WS_SEND_BUFFER_LIMIT_BYTES: positiveInt(1024 * 1024),
  /** `/ws` sockets one user may hold open on one server process; the upgrade beyond it is answered 429 RATE_LIMITED. */
  WS_CONNECTIONS_PER_USER: positiveInt(20),
  /**
   * Changes (REST writes, tRPC mutations) one account or observatory key may make a minute on one
   * server process, with a burst of as many; beyond it 429 RATE_LIMITED with Retry-After.
   */
  API_WRITES_PER_MINUTE: positiveInt(1200),
  /** How often a connected plugin below the minimum version is told `update_required` again (contract: every 4 hours). */
  PLUGIN_UPDATE_REMINDER_MS: positiveInt(4 * 3_600_000),
  /** The largest observation file an observatory may upload (streamed; default 4 GiB). */
  MAX_UPLOAD_BYTES: positiveInt(4 * 1024 ** 3),
  /** How long an upload may wait for the client's next bytes before it is answered 408 and nothing is stored. */
  UPLOAD_IDLE_TIMEOUT_MS: positiveInt(60_000),
  /**
   * The least average rate of a request body (JSON, avatar, upload) once BODY_RATE_GRACE_MS passed:
   * a slower one is answered 408 REQUEST_TIMEOUT and nothing is done with it. Only the time the
   * server waits on the client counts. UPLOAD_IDLE_TIMEOUT_MS alone never ends a trickle (each byte resets it).
   */
  MIN_BODY_BYTES_PER_SECOND: positiveInt(1024),
  /** How long a request body may take before its average is held to MIN_BODY_BYTES_PER_SECOND. */
  BODY_RATE_GRACE_MS: positiveInt(20_000),
  /**
   * How long a process may serve a cached principal or pending-announcement list without hearing
   * of a change. Changes invalidate at once (NOTIFY); this bounds a notification lost in a reconnect.
   */
  REQUEST_CACHE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(5_000),
  /**
   * How long an idle keep-alive connection stays open (Node's 5 s by default). A balancer must drop its
   * idle upstream connections sooner, or a request may meet a connection the server is closing.
   */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(5_000),
  /**
   * On shutdown, how long an idle keep-alive connection may still bring one more request (answered
   * with `Connection: close`) before it is closed; requests in flight always get up to 10 s.
   */
  SHUTDOWN_IDLE_GRACE_MS: z.coerce.number().int().min(0).max(10_000).default(1_500),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  WEB_DIST_DIR: optionalString,
  /**
   * The plate-solving star catalog: a folder of astrometry.net index files (Debian's
   * `astrometry-data-tycho2*` packages put them in the default). Missing or empty: frames are
   * measured and graded without a solution (`CATALOG_MISSING`) and server admins are told once per start.
   */
  STAR_CATALOG_DIR: z.string().trim().min(1).default("/usr/share/astrometry"),
  /** The longest one frame's analysis may take (download, source-extractor, solve-field); over it the frame fails with that reason. */
  FRAME_ANALYSIS_TIMEOUT_SECONDS: z.coerce.number().int().min(5).max(3_600).default(120),
  /** Frames one worker process analyses at once (each runs source-extractor and solve-field: CPU-bound). */
  FRAME_ANALYSIS_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
  /** How far ahead the network plan looks (docs/api-contract.md, "Network scheduling"). */
  PLAN_HORIZON_HOURS: z.coerce.number().int().min(1).max(168).default(72),
  /**
   * An observatory offline, unsafe or under a weather hold this long gets nothing planned until it is back, and its
   * unstarted work with other candidates waits for them again. Minutes, as the contract names it; a fraction is a
   * fraction of a minute (0.5: 30 s), down to 0.1 (6 s). Shorter than the seconds observatories take to reconnect when
   * their server restarts, it would move their work on every restart: values that short are for tests (the topology check's).
   */
  REASSIGN_AFTER_MINUTES: z.coerce.number().min(0.1).max(1_440).default(10),
  /**
   * Check every REST response body against its operation's declared output schema, and answer 500
   * (logged) when it does not match: the test harness turns it on; it costs a parse per response.
   */
  VALIDATE_RESPONSES: booleanFromString.default(false),
  /**
   * How passwords are hashed: `owasp` (argon2id, 19 MiB, 2 passes; always outside tests) or `fast-for-tests` (argon2id at
   * its smallest cost), which only NODE_ENV=test accepts: a test run signs up and logs in thousands of times, and at
   * OWASP's cost each hash is ~15 ms of CPU on a 2-core machine. A hash records its parameters, so either verifies both.
   */
  PASSWORD_HASHING: z.enum(["owasp", "fast-for-tests"]).default("owasp"),
});

export type Env = z.infer<typeof envSchema>;

/** Every variable the env module reads: what deployment files may set (tests hold infra/ to it). */
export const envVariableNames: readonly string[] = Object.keys(envSchema.shape);

export class EnvError extends Error {}

/** Parses and validates configuration once; everything else receives the typed result. */
export function loadEnv(source: Record<string, string | undefined> = process.env): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new EnvError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const env = result.data;
  if ((env.ADMIN_EMAIL === undefined) !== (env.ADMIN_PASSWORD === undefined)) {
    throw new EnvError("Invalid configuration:\n  ADMIN_EMAIL and ADMIN_PASSWORD must be set together");
  }
  if (env.ADMIN_PASSWORD !== undefined && env.ADMIN_PASSWORD.length < 8) {
    throw new EnvError("Invalid configuration:\n  ADMIN_PASSWORD must have at least 8 characters");
  }
  if (env.PASSWORD_HASHING === "fast-for-tests" && env.NODE_ENV !== "test") {
    throw new EnvError("Invalid configuration:\n  PASSWORD_HASHING=fast-for-tests is for NODE_ENV=test only");
  }
  if (env.DATABASE_URL !== undefined && env.SECRETS_KEY === undefined) {
    // With a shared database, processes must share the key too; a generated one lives in one DATA_DIR only.
    throw new EnvError("Invalid configuration:\n  SECRETS_KEY must be set when DATABASE_URL is (every process needs the same key)");
  }
  return { ...env, DATA_DIR: path.resolve(env.DATA_DIR) };
}

/**
 * The AWS SDK prints an eight-line warning on stderr in every process under Node 22 when it makes
 * its first client; Meridian supports Node 20. Commands whose stderr a person reads call this
 * before the runtime starts (the SDK reads the flag then). A value already set is kept.
 */
export function quietAwsSdkNodeVersionWarning(source: Record<string, string | undefined> = process.env): void {
  source.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
}
