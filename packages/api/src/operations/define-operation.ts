import type { RouteConfig } from "@hono/zod-openapi";
import type { HonoRequest } from "hono";
import type { ObservatoryPrincipal } from "@meridian/domain/observatories";
import type { Principal, UserActor } from "@meridian/domain/platform";
import type { z } from "zod";
import type { RequestContext } from "../context";

/**
 * Who may call an operation. The REST and tRPC adapters both check it before the input is
 * parsed, so a caller without credentials learns nothing about what an operation accepts.
 */
export type Access = "public" | "signed-in" | "server-admin" | "observatory-or-user" | "observatory";

/** What a handler sees of the request, whichever face (REST or tRPC) it came through. */
export type OperationContext = RequestContext;

type Signed<A extends Access, T> = A extends "public" | "observatory-or-user" ? T | undefined : A extends "observatory" ? undefined : T;

export interface HandlerArgs<A extends Access, I> {
  ctx: OperationContext;
  actor: Signed<A, UserActor>;
  principal: Signed<A, Principal>;
  /** The observatory whose key made the call (tiers `observatory` and `observatory-or-user`). */
  observatory: A extends "observatory" ? ObservatoryPrincipal : ObservatoryPrincipal | undefined;
  input: I;
}

type ObjectSchema = z.ZodObject;
type Out<S> = S extends z.ZodType ? z.output<S> : unknown;

/**
 * What a handler may return: exactly the declared `output` (its parsed form), or a `Reply` for what
 * the REST face sends as it is (another status, a body already serialized, bytes). Without an
 * `output` (a 204, a download) anything goes, since nothing of it is sent as JSON.
 */
export type HandlerResult<O> = [O] extends [z.ZodType] ? z.output<O> | Reply<unknown> : unknown;
type BodyInput<B, K> = B extends z.ZodType ? (K extends string ? { [P in K]: z.output<B> } : z.output<B>) : unknown;

/** The handler's input: path parameters, query and body merged, as the tRPC procedure takes it. */
export type InputOf<P, Q, B, K> = Out<P> & Out<Q> & BodyInput<B, K>;

/**
 * A reply the REST face sends as it is (a status other than the declared one, a body already
 * serialized, bytes); the tRPC face answers with `body`.
 */
export class Reply<T = unknown> {
  constructor(
    readonly status: number,
    readonly body: T,
    readonly headers: Record<string, string> = {},
  ) {}
}

export type Method = "get" | "post" | "put" | "delete";
export type TrpcFace = "query" | "mutation" | false | undefined;

export interface OperationConfig<
  A extends Access,
  M extends Method,
  P,
  Q,
  B,
  K extends string | undefined,
  O,
  R extends HandlerResult<O>,
  F extends TrpcFace = undefined,
  Opt extends boolean = false,
> {
  /** Unique, camelCase; the OpenAPI `operationId`, so generated clients get real method names. */
  operationId: string;
  access: A;
  tags: string[];
  summary: string;
  description?: string;
  method: M;
  /** The REST path in OpenAPI form (`/projects/{id}`); none for a procedure the SPA alone calls. */
  path?: string;
  /** The success status; 204 sends no body (and tRPC answers `{ok: true}`). */
  status?: 200 | 201 | 202 | 204;
  params?: P;
  query?: Q;
  body?: B;
  /** The tRPC input holds the body under this key (`{id, update}`) instead of beside the parameters. */
  bodyKey?: K;
  /** How the body is documented and read when it is not plain required JSON. */
  requestBody?: NonNullable<RouteConfig["request"]>["body"];
  /** Reads the body itself instead of validating it (e.g. a DELETE whose body is optional). */
  readBody?: (request: HonoRequest, ctx: RequestContext) => Promise<Out<B>>;
  output?: O;
  outputDescription?: string;
  /** Every other response the operation can give (refusals, conflicts), as the document lists them. */
  responses?: RouteConfig["responses"];
  /** The tRPC face: `false` for REST-only operations (raw bodies, bytes). Defaults from the method. */
  trpc?: F;
  /** A tRPC input that may be omitted altogether (every field optional). */
  trpcInputOptional?: Opt;
  /**
   * A write that must work while a restore holds every other write (503 MAINTENANCE): the way out
   * of a restore that will not finish (cancelling its job) and signing in or out to get there.
   */
  allowedDuringMaintenance?: boolean;
  /**
   * How many changes one call counts as against its caller's API_WRITES_PER_MINUTE (a write's
   * default is 1): a bulk operation counts the items it names, since each is a write of its own.
   */
  writeCost?: (input: InputOf<P, Q, B, K>) => number;
  handle(args: HandlerArgs<A, InputOf<P, Q, B, K>>): Promise<R> | R;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyOperation = OperationConfig<any, any, any, any, any, any, any, any, any, any>;

/** One operation: its schemas, who may call it, its REST method, path and status, and its call into the domain. */
export function defineOperation<
  A extends Access,
  M extends Method,
  P extends ObjectSchema | undefined = undefined,
  Q extends ObjectSchema | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  K extends string | undefined = undefined,
  O extends z.ZodType | undefined = undefined,
  R extends HandlerResult<O> = HandlerResult<O>,
  F extends TrpcFace = undefined,
  Opt extends boolean = false,
>(config: OperationConfig<A, M, P, Q, B, K, O, R, F, Opt>): OperationConfig<A, M, P, Q, B, K, O, R, F, Opt> {
  return config;
}
