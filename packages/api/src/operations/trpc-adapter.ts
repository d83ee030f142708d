import type { TRPCMutationProcedure, TRPCQueryProcedure } from "@trpc/server";
import { actorOfPrincipal } from "@meridian/domain/platform";
import { z } from "zod";
import { adminProcedure, authedProcedure, publicProcedure, router, type ProcedureMeta } from "../trpc/init";
import { serializedThroughSchema } from "../http/response-serializer";
import { chargeWrites } from "./charge-writes";
import { Reply, type Access, type AnyOperation, type OperationConfig, type OperationContext } from "./define-operation";

type In<S> = S extends z.ZodType ? z.input<S> : unknown;
type Paged<T> = T extends { cursor?: unknown } ? Omit<T, "cursor"> & { cursor?: string | null; direction?: "forward" } : T;
type Merged<P, Q, B, K> = In<P> & Paged<In<Q>> & (B extends z.ZodType ? (K extends string ? { [Key in K]: z.input<B> } : z.input<B>) : unknown);
type TrpcInput<P, Q, B, K, Opt> = [P, Q, B] extends [undefined, undefined, undefined]
  ? void
  : Opt extends true
    ? Merged<P, Q, B, K> | undefined
    : Merged<P, Q, B, K>;
/** The bodies of the `Reply`s a handler may give (distributes over a union). */
type ReplyBody<R> = R extends Reply<infer T> ? T : never;
/** The tRPC output: the declared `output` schema's type (and the bodies of its replies); `{ok: true}` without one. */
type TrpcOutput<R, O> = [O] extends [z.ZodType] ? z.output<O> | ReplyBody<Awaited<R>> : ReplyBody<Awaited<R>> | { ok: true };

/** The tRPC procedure type an operation becomes, so the SPA's client is typed from the definition. */
export type ProcedureOf<T> =
  T extends OperationConfig<Access, infer M, infer P, infer Q, infer B, infer K, infer O, infer R, infer F, infer Opt>
    ? (F extends "query" ? true : F extends "mutation" ? false : M extends "get" ? true : false) extends true
      ? TRPCQueryProcedure<{ input: TrpcInput<P, Q, B, K, Opt>; output: TrpcOutput<R, O>; meta: ProcedureMeta }>
      : TRPCMutationProcedure<{ input: TrpcInput<P, Q, B, K, Opt>; output: TrpcOutput<R, O>; meta: ProcedureMeta }>
    : never;

// Observatory keys never reach tRPC: the SPA's users call the observatory-or-user operations as signed-in users.
const tiers = {
  public: publicProcedure,
  "signed-in": authedProcedure,
  "server-admin": adminProcedure,
  "observatory-or-user": authedProcedure,
  observatory: authedProcedure,
} as const;

/** One object for the procedure: path parameters, query and body, the body under `bodyKey` when given. */
function inputSchemaOf(operation: AnyOperation): z.ZodType | undefined {
  const parts: Record<string, z.ZodType> = { ...operation.params?.shape, ...operation.query?.shape };
  // TanStack's infinite queries send `cursor: null` first and add `direction`.
  if (parts.cursor) Object.assign(parts, { cursor: parts.cursor.nullable(), direction: z.literal("forward").optional() });
  let schema: z.ZodType | undefined;
  if (operation.body && operation.bodyKey) schema = z.strictObject({ ...parts, [operation.bodyKey]: operation.body });
  else if (operation.body) schema = Object.keys(parts).length > 0 ? (operation.body as z.ZodObject).safeExtend(parts) : operation.body;
  else if (Object.keys(parts).length > 0) schema = z.strictObject(parts);
  return schema && operation.trpcInputOptional ? schema.optional() : schema;
}

function withoutPagingExtras(input: unknown): Record<string, unknown> {
  if (!input || typeof input !== "object") return {};
  const { direction: _direction, ...rest } = input as Record<string, unknown>;
  if (rest.cursor === null) delete rest.cursor;
  return rest;
}

/**
 * The procedure's output parser, from the operation's `output`: what a handler answers with its declared
 * status goes through the schema (`serializedThroughSchema`: an undeclared field stays behind, a missing
 * one is a logged 500); the body of a `Reply` with another status (a 202's job) is not what it describes.
 */
const outputParserOf = (operation: AnyOperation) => (answer: unknown) => {
  if (!(answer instanceof Reply)) return serializedThroughSchema(operation.operationId, operation.output, answer);
  if (answer.status !== (operation.status ?? 200)) return answer.body;
  return serializedThroughSchema(operation.operationId, operation.output, answer.body);
};

function procedureOf<T extends AnyOperation>(operation: T): ProcedureOf<T> {
  const tier = tiers[operation.access as Access];
  const base = operation.allowedDuringMaintenance ? tier.meta({ access: tier._def.meta!.access, allowedDuringMaintenance: true }) : tier;
  const schema = inputSchemaOf(operation);
  const withInput = schema ? base.input(schema) : base;
  // The answer (a `Reply` as it is) reaches the output parser, which knows its status.
  const withOutput = operation.output ? withInput.output(outputParserOf(operation)) : withInput;
  const resolve = async ({ ctx, input }: { ctx: OperationContext; input: unknown }) => {
    const principal = ctx.principal;
    const actor = principal ? actorOfPrincipal(principal) : undefined;
    const parsed = withoutPagingExtras(input);
    chargeWrites(operation, ctx, parsed);
    const result = await operation.handle({ ctx, actor, principal, observatory: undefined, input: parsed });
    if (operation.output) return result;
    if (result instanceof Reply) return result.body;
    // An operation without a response body (204, 202) answers `{ok: true}` over tRPC.
    return { ok: true as const };
  };
  const kind = operation.trpc ?? (operation.method === "get" ? "query" : "mutation");
  return (kind === "query" ? withOutput.query(resolve as never) : withOutput.mutation(resolve as never)) as unknown as ProcedureOf<T>;
}

type ProceduresOf<T extends Record<string, AnyOperation>> = { [Name in keyof T as T[Name]["trpc"] extends false ? never : Name]: ProcedureOf<T[Name]> };

/** The tRPC procedures of the given operations, named by their keys (REST-only ones left out). */
export function proceduresOf<T extends Record<string, AnyOperation>>(operations: T): ProceduresOf<T> {
  const entries = Object.entries(operations).filter(([, operation]) => operation.trpc !== false);
  return Object.fromEntries(entries.map(([name, operation]) => [name, procedureOf(operation)])) as ProceduresOf<T>;
}

/** A tRPC router whose procedures are the given operations. */
export function routerOf<T extends Record<string, AnyOperation>>(operations: T) {
  return router(proceduresOf(operations));
}
