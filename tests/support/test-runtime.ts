import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import { createCaller, type TrpcContext } from "@meridian/api";
import { createLogger, type Env } from "@meridian/config";
import { authenticateToken } from "@meridian/domain/auth";
import { AppError, validationError, type Deps, type Runtime } from "@meridian/domain/platform";
import { openServerRuntime, startServerWorker, type RunningServer } from "@meridian/server";
import { expect } from "vitest";
import { ZodError } from "zod";
import { prepareTestEnv } from "./test-server";

type RunningWorker = NonNullable<RunningServer["worker"]>;

/** The app router's typed caller, as one principal. */
export type Caller = ReturnType<typeof createCaller>;

/** A signed-in account of a test runtime: what auth-suite's Account holds, and its caller. */
export interface CallerAccount {
  id: string;
  email: string;
  name: string;
  password: string;
  token: string;
  caller: Caller;
}

export interface TestRuntime {
  /** The deps a server builds (database, object storage, secrets, caches): domain functions take them. */
  deps: Deps;
  runtime: Runtime;
  env: Env;
  databaseUrl: string;
  dataDir: string;
  /** The worker (jobs, email, tracked jobs), once `startWorker` or `{ worker: true }` started it. */
  worker: RunningWorker | undefined;
  startWorker(): Promise<RunningWorker>;
  /** A caller without credentials. */
  anonymous: Caller;
  /** A caller as the holder of `token` (a session or an API key), authenticated at each call as the HTTP layer does at each request. */
  callerFor(token: string): Promise<Caller>;
  /** Signs up a fresh account through `auth.signup`; `fields` replace the unique defaults. */
  signup(fields?: { email?: string; password?: string; name?: string }): Promise<CallerAccount>;
  /** Signs in through `auth.login` (the server admin of ADMIN_EMAIL, say). */
  signIn(credentials: { email: string; password: string }): Promise<CallerAccount>;
  /** Stops the worker and the runtime and removes the data folder; a second call waits for the first. */
  stop(): Promise<void>;
}

/** The origin of email links: the runtime listens nowhere (PUBLIC_URL, when a test sets it, comes first). */
const LINK_ORIGIN = "http://127.0.0.1";

/**
 * What a server process holds, without HTTP, WebSocket or cluster presence: the server's own runtime
 * (`openServerRuntime`: a database cloned for this file, the run's S3-protocol server, the ADMIN_EMAIL
 * account) and, with `worker` or after `startWorker()`, the worker a server of role `all` runs. Tests of
 * domain rules and operations call the app router through a typed caller per principal, as tRPC's HTTP
 * adapter would with the same context, or domain functions with `deps`.
 */
export async function startTestRuntime(options: { env?: Record<string, string>; worker?: boolean } = {}): Promise<TestRuntime> {
  const { env, databaseUrl, dataDir } = await prepareTestEnv({
    SIGNUPS_PER_IP_PER_HOUR: "100000",
    LOGIN_FAILURES_PER_IP: "100000",
    ...options.env,
    // The role sets the pool's size and statement timeout as it does for a server that does (not) run the worker.
    MERIDIAN_ROLE: options.worker ? "all" : "server",
  });
  const logger = createLogger({ level: env.LOG_LEVEL, name: "test" });
  const runtime = await openServerRuntime({ env, logger });
  const { deps } = runtime;
  deps.listeningOn = LINK_ORIGIN;
  let worker: RunningWorker | undefined;

  const anonymous = callerOver(deps);
  const callerFor = async (token: string) => {
    if (!(await authenticateToken({ deps, token }))) throw new Error("the token names no session or key");
    return callerOver(deps, token);
  };
  const account = async (signedIn: { user: { id: string; email: string; name: string }; token: string }, password: string) => ({
    id: signedIn.user.id,
    email: signedIn.user.email,
    name: signedIn.user.name,
    password,
    token: signedIn.token,
    caller: await callerFor(signedIn.token),
  });
  const startWorker = async () => (worker ??= await startServerWorker(runtime));
  let stopped: Promise<void> | undefined;
  // Once: a test that stops its runtime midway may leave the same stop to its finally.
  const stop = () =>
    (stopped ??= (async () => {
      await worker?.stop();
      await runtime.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    })());

  try {
    if (options.worker) await startWorker();
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    deps,
    runtime,
    env,
    databaseUrl,
    dataDir,
    get worker() {
      return worker;
    },
    startWorker,
    anonymous,
    callerFor,
    async signup(fields = {}) {
      const tag = randomBytes(4).toString("hex");
      const password = fields.password ?? "correct horse battery";
      const body = { email: fields.email ?? `user-${tag}@example.com`, password, name: fields.name ?? `User ${tag}` };
      return account(await anonymous.auth.signup(body), password);
    },
    async signIn(credentials) {
      return account(await anonymous.auth.login(credentials), credentials.password);
    },
    stop,
  };
}

let requests = 0;

/**
 * The app router's caller over `deps` (a test runtime's or a running server's), as tRPC's HTTP adapter builds its
 * context: as the holder of `token` (a session or an API key), authenticated again at each call as the HTTP layer does
 * at each request (the principal carries the user's row: name, roles, preferences; a revoked session or key is refused
 * from the next call on), or without credentials.
 */
export function callerOver(deps: Deps, token?: string): Caller {
  return createCaller(async () => {
    requests += 1;
    return {
      deps,
      principal: token ? await authenticateToken({ deps, token }) : undefined,
      credentialSource: token ? "bearer" : undefined,
      token,
      client: { ip: "127.0.0.1", userAgent: "vitest" },
      requestId: `test-caller-${requests}`,
      secureCookies: false,
      linkOrigin: deps.env.PUBLIC_URL ?? deps.listeningOn ?? LINK_ORIGIN,
      setSessionToken: () => undefined,
    } satisfies TrpcContext;
  });
}

/**
 * The domain's refusal behind an error the caller threw, as the HTTP faces read it: its AppError, or for input the
 * procedure's schema refused, the VALIDATION_FAILED REST answers (tRPC's error formatter makes the same).
 */
function refusalBehind(error: unknown): AppError {
  expect(error, "the call should have been refused").toBeInstanceOf(Error);
  const cause = (error as Error).cause;
  // Only an input's: a ZodError behind INTERNAL_SERVER_ERROR is an answer that failed its output schema.
  if (cause instanceof ZodError && (error as { code?: unknown }).code === "BAD_REQUEST") return validationError({ issues: cause.issues });
  expect(cause, `${String(error)}: no AppError behind it`).toBeInstanceOf(AppError);
  return cause as AppError;
}

/** The refusal a call ended in (its stable code and the HTTP status REST answers with). Fails the test if the call succeeded. */
export async function refusalOf(call: Promise<unknown>): Promise<AppError> {
  return refusalBehind(
    await call.then(
      () => undefined,
      (caught: unknown) => caught,
    ),
  );
}

/** Asserts that a call was refused with `status` and the stable `code`, and returns the refusal. */
export async function expectRefusal(call: Promise<unknown>, status: number, code: string): Promise<AppError> {
  const refusal = await refusalOf(call);
  expect({ status: refusal.status, code: refusal.code, message: refusal.message }).toMatchObject({ status, code });
  expect(refusal.message.length).toBeGreaterThan(0);
  return refusal;
}

/** What REST would answer a call with: `success` when it succeeds, its refusal's status and code when refused. */
export function answerOf(call: Promise<unknown>, success: number): Promise<{ status: number; code?: string }> {
  return call.then(
    () => ({ status: success, code: undefined }),
    (error: unknown) => {
      const refusal = refusalBehind(error);
      return { status: refusal.status, code: refusal.code };
    },
  );
}

/** A new organization owned by `owner`, unique by a random tag; `fields` replace or add to the defaults. */
export function createOrganizationAs(owner: CallerAccount, fields: { name?: string; shortName?: string; type?: "other" | "university" } = {}) {
  const tag = randomBytes(4).toString("hex");
  return owner.caller.organizations.create({ name: `Org ${tag}`, shortName: `org-${tag}`, type: "other", contactEmail: `${tag}@example.com`, ...fields });
}

/** A new observatory owned by `owner`. */
export function createObservatoryAs(owner: CallerAccount, name = `Observatory ${randomBytes(3).toString("hex")}`) {
  return owner.caller.observatories.create({ name });
}
