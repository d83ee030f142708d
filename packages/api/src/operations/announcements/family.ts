import { z } from "@hono/zod-openapi";
import {
  acknowledgeAnnouncement,
  announcementListSchema,
  announcementSchema,
  cancelAnnouncement,
  cancelAnnouncementSchema,
  createScopedAnnouncement,
  getAnnouncementRecipients,
  listQuerySchema,
  MAX_ACTIVE_ANNOUNCEMENTS,
  listScopeActiveAnnouncements,
  listScopeAnnouncementHistory,
  previewScopedRecipients,
  recipientCountSchema,
  recipientsQuerySchema,
  recipientsViewSchema,
  scopedAnnouncementCreateSchema,
  scopedKindSchema,
  type AnnouncementScopeRef,
  type ScopedKind,
} from "@meridian/domain/announcements";
import { type UserActor } from "@meridian/domain/platform";
import { opaqueIdSchema } from "@meridian/domain/users";
import type { HonoRequest } from "hono";
import { defineOperation, type AnyOperation, type OperationConfig, type OperationContext } from "../define-operation";
import { authedErrors, conflict, errorResponses, idParam, problemResponseFor } from "../responses";
import { acknowledged, cancelBody, cancelled, lifecycle, retention, showingLimit, tags } from "./shared";

/**
 * The announcement operations every scope shares, each defined once and parameterised by scope.
 * Each serves both faces: REST, one path and operationId per scope as docs/api-contract.md writes them
 * (`/api/v1/system/motd/{id}`, `/observatories/{id}/motd/{motdId}`, ...), and one tRPC procedure
 * whose input names the scope. Changing what "cancel an announcement" does is one edit here.
 */

type AnnouncementScope = AnnouncementScopeRef["scope"];
/** A scope other than the system's, named by its id. */
type ScopedRef = Extract<AnnouncementScopeRef, { scope: ScopedKind }>;

/** Where a scope's announcements live on the REST face. */
interface ScopeFace {
  scope: AnnouncementScope;
  /** For operationIds: `cancelObservatoryAnnouncement`. */
  title: string;
  /** The collection path: `/api/v1/system/motd`, `/observatories/{id}/motd`. */
  base: string;
  /** The path parameter naming one announcement: `{id}` for system ones, `{motdId}` under a scope. */
  item: "id" | "motdId";
  /** Who may send (and manage) announcements of the scope, for the descriptions. */
  senders: string;
}

const faces: Record<AnnouncementScope, ScopeFace> = {
  system: { scope: "system", title: "System", base: "/api/v1/system/motd", item: "id", senders: "server admins" },
  observatory: {
    scope: "observatory",
    title: "Observatory",
    base: "/observatories/{id}/motd",
    item: "motdId",
    senders: "the observatory's owner or a member with can_admin; server admins everywhere",
  },
  organization: {
    scope: "organization",
    title: "Organization",
    base: "/organizations/{id}/motd",
    item: "motdId",
    senders: "the organization's owner or a member with can_manage_members or can_manage_observatories; server admins everywhere",
  },
  project: {
    scope: "project",
    title: "Project",
    base: "/projects/{id}/motd",
    item: "motdId",
    senders: "the project's owner or a project admin; server admins everywhere",
  },
};
const allScopes = ["system", "observatory", "organization", "project"] as const;
const scopedKinds = ["observatory", "organization", "project"] as const;

/** The REST path parameters of a face: the scope's id (not for system ones) and, for an item, the announcement's. */
function restParams(face: ScopeFace, item: boolean) {
  if (face.scope === "system") return item ? z.object({ id: idParam }) : undefined;
  return item ? z.object({ id: idParam, motdId: idParam }) : z.object({ id: idParam });
}
const restRef = (face: ScopeFace, input: Record<string, unknown>): AnnouncementScopeRef =>
  face.scope === "system" ? { scope: "system", scopeId: null } : { scope: face.scope, scopeId: input.id as string };
/** The REST input without its path parameters: what the action itself takes. */
function restArgs(face: ScopeFace, input: Record<string, unknown>) {
  const { id: _id, motdId: _motdId, ...rest } = input;
  return { announcementId: (face.scope === "system" ? input.id : input.motdId) as string | undefined, rest };
}

interface ActionContext<Args, Ref extends AnnouncementScopeRef = AnnouncementScopeRef> {
  ctx: OperationContext;
  actor: UserActor;
  ref: Ref;
  /** The announcement, for actions on one. */
  announcementId: string;
  args: Args;
}

/** `{scope: "system"}` or `{scope, scopeId}`: how the tRPC face names a scope. */
const scopeRefSchema = z.discriminatedUnion("scope", [
  z.strictObject({ scope: z.literal("system") }),
  z.strictObject({ scope: scopedKindSchema, scopeId: opaqueIdSchema }),
]);
const toRef = (ref: z.infer<typeof scopeRefSchema>): AnnouncementScopeRef =>
  ref.scope === "system" ? { scope: "system", scopeId: null } : { scope: ref.scope, scopeId: ref.scopeId };
const scopeFields = { scope: scopedKindSchema, scopeId: opaqueIdSchema };

type TrpcMethod = "get" | "post";
/** The procedure an action's tRPC face becomes: its input schema as the query (get) or the body (post). */
type ActionProcedure<M extends TrpcMethod, S extends z.ZodObject, O extends z.ZodType> = OperationConfig<
  "signed-in",
  M,
  undefined,
  M extends "get" ? S : undefined,
  M extends "get" ? undefined : S,
  undefined,
  O,
  // The output type comes from `O` alone (the handler's own type is checked where `run` is written).
  never
>;

/**
 * One action on announcements, defined once: what it does (`run`), its output and refusals, and its
 * two faces: the REST operations of each scope it serves, and the one tRPC procedure (named by the
 * key it is registered under) whose input names the scope.
 */
function scopedAction<Args, M extends TrpcMethod, S extends z.ZodObject, O extends z.ZodType, Ref extends AnnouncementScopeRef = AnnouncementScopeRef>(action: {
  scopes: readonly Ref["scope"][];
  /** On one announcement (its id in the path), or on the scope's announcements. */
  item: boolean;
  summary: (face: ScopeFace) => string;
  description?: (face: ScopeFace) => string;
  output: O;
  outputDescription: string;
  responses: AnyOperation["responses"];
  run(context: ActionContext<Args, Ref>): Promise<z.output<O>>;
  rest: {
    operationId: (face: ScopeFace) => string;
    method: "get" | "post" | "delete";
    /** After the scope's base (and the announcement's parameter): `/acknowledge`. */
    suffix?: string;
    status: 200 | 201;
    query?: z.ZodObject;
    body?: z.ZodType;
    /** The action's arguments are the body under this key (`{announcement}`). */
    bodyKey?: string;
    requestBody?: typeof cancelBody.requestBody;
    readBody?: (request: HonoRequest) => Promise<unknown>;
  };
  trpc: {
    operationId: string;
    summary: string;
    method: M;
    input: S;
    /** The scope, the announcement and the action's arguments, from the procedure's input. */
    call(input: z.output<S>): { ref: Ref; announcementId?: string; args: Args };
  };
}): { rest: AnyOperation[]; procedure: ActionProcedure<M, S, O> } {
  const face_ = action.rest;
  const rest = action.scopes.map((scope) => {
    const face = faces[scope as AnnouncementScope];
    const path = `${face.base}${action.item ? `/{${face.item}}` : ""}${face_.suffix ?? ""}`;
    const description = action.description?.(face);
    return defineOperation({
      operationId: face_.operationId(face),
      access: "signed-in",
      tags,
      summary: action.summary(face),
      ...(description ? { description } : {}),
      method: face_.method,
      path,
      status: face_.status,
      params: restParams(face, action.item),
      ...(face_.query ? { query: face_.query } : {}),
      ...(face_.body ? { body: face_.body } : {}),
      ...(face_.bodyKey ? { bodyKey: face_.bodyKey } : {}),
      ...(face_.requestBody ? { requestBody: face_.requestBody, readBody: face_.readBody } : {}),
      output: action.output,
      outputDescription: action.outputDescription,
      responses: action.responses,
      trpc: false,
      handle: ({ ctx, actor, input }) => {
        const { announcementId, rest: fields } = restArgs(face, input as Record<string, unknown>);
        const args = (face_.bodyKey ? fields[face_.bodyKey] : fields) as Args;
        const ref = restRef(face, input as Record<string, unknown>) as Ref;
        return action.run({ ctx, actor: actor!, ref, announcementId: announcementId ?? "", args });
      },
    }) as AnyOperation;
  });
  const { trpc } = action;
  const procedure = defineOperation({
    operationId: trpc.operationId,
    access: "signed-in",
    tags,
    summary: trpc.summary,
    method: trpc.method,
    ...(trpc.method === "get" ? { query: trpc.input } : { body: trpc.input }),
    output: action.output,
    handle: ({ ctx, actor, input }: { ctx: OperationContext; actor: UserActor; input: z.output<S> }) => {
      const { ref, announcementId, args } = trpc.call(input);
      return action.run({ ctx, actor, ref, announcementId: announcementId ?? "", args });
    },
  } as never) as ActionProcedure<M, S, O>;
  return { rest, procedure };
}

const senderWord = (face: ScopeFace) => (face.scope === "system" ? "server admins" : "senders");
const scopedRef = (input: { scope: ScopedKind; scopeId: string }): ScopedRef => ({ scope: input.scope, scopeId: input.scopeId });

// ---- On the announcements of an observatory, organization or project ----

const create = scopedAction({
  scopes: scopedKinds,
  item: false,
  summary: (face) => `Create a ${face.scope} announcement (senders)`,
  description: (face) =>
    `Recipients: everyone with access to the ${face.scope}, resolved now. Senders: ${face.senders}. ${lifecycle} ` +
    "Rate limited: each user may create EMAIL_ANNOUNCEMENTS_PER_USER_PER_HOUR (default 10) announcements delivered by email " +
    "(`email` or `both`) an hour, organizations', observatories' and projects' together; beyond it 429 RATE_LIMITED with " +
    "Retry-After, and nothing is created. `message` announcements are not counted. " +
    `A ${face.scope} has at most ${MAX_ACTIVE_ANNOUNCEMENTS} active announcements (scheduled ones included); ` +
    `beyond, 409 CONFLICT until one is cancelled, expires or is acknowledged by every recipient. ${showingLimit}`,
  output: announcementSchema,
  outputDescription: "Created",
  responses: {
    ...authedErrors,
    400: problemResponseFor("Invalid input (VALIDATION_FAILED) or NO_RECIPIENTS"),
    409: conflict(`CONFLICT: the scope has ${MAX_ACTIVE_ANNOUNCEMENTS} active announcements`),
    429: errorResponses[429],
  },
  run: ({ ctx, actor, ref, args }: ActionContext<z.output<typeof scopedAnnouncementCreateSchema>, ScopedRef>) =>
    createScopedAnnouncement({ deps: ctx.deps, actor, ref, input: args }),
  rest: {
    operationId: (face) => `create${face.title}Announcement`,
    method: "post",
    status: 201,
    body: scopedAnnouncementCreateSchema,
    bodyKey: "announcement",
  },
  trpc: {
    operationId: "createScopedAnnouncement",
    summary: "Create an announcement of an observatory, organization or project",
    method: "post",
    input: z.strictObject({ ...scopeFields, announcement: scopedAnnouncementCreateSchema }),
    call: (input) => ({ ref: scopedRef(input), args: input.announcement }),
  },
});

const listActive = scopedAction({
  scopes: scopedKinds,
  item: false,
  summary: (face) => `The ${face.scope}'s announcements showing now (anyone who can see the ${face.scope})`,
  description: () => "Started, not expired, not cancelled; `acknowledgedAt` is yours when you are a recipient.",
  output: announcementListSchema,
  outputDescription: "Announcements",
  responses: authedErrors,
  run: ({ ctx, actor, ref }: ActionContext<unknown, ScopedRef>) => listScopeActiveAnnouncements({ deps: ctx.deps, actor, ref }),
  rest: { operationId: (face) => `list${face.title}Announcements`, method: "get", status: 200 },
  trpc: {
    operationId: "listScopeAnnouncements",
    summary: "A scope's announcements showing now",
    method: "get",
    input: z.strictObject(scopeFields),
    call: (input) => ({ ref: scopedRef(input), args: undefined }),
  },
});

const history = scopedAction({
  scopes: scopedKinds,
  item: false,
  summary: (face) => `Every announcement of the ${face.scope}, past included (senders)`,
  description: (face) => `\`?status=\` filters. Senders: ${face.senders}. ${retention}`,
  output: announcementListSchema,
  outputDescription: "Announcements",
  responses: authedErrors,
  run: ({ ctx, actor, ref, args }: ActionContext<z.output<typeof listQuerySchema>, ScopedRef>) =>
    listScopeAnnouncementHistory({ deps: ctx.deps, actor, ref, query: args }),
  rest: { operationId: (face) => `list${face.title}AnnouncementHistory`, method: "get", suffix: "/history", status: 200, query: listQuerySchema },
  trpc: {
    operationId: "listScopeAnnouncementHistory",
    summary: "Every announcement of a scope, past included",
    method: "get",
    input: listQuerySchema.extend(scopeFields),
    call: ({ scope, scopeId, ...query }) => ({ ref: scopedRef({ scope, scopeId }), args: query }),
  },
});

const preview = scopedAction({
  scopes: scopedKinds,
  item: false,
  summary: () => "How many users an announcement would reach now (extension; senders)",
  output: recipientCountSchema,
  outputDescription: "Recipient count",
  responses: authedErrors,
  run: ({ ctx, actor, ref }: ActionContext<unknown, ScopedRef>) => previewScopedRecipients({ deps: ctx.deps, actor, ref }),
  rest: { operationId: (face) => `preview${face.title}AnnouncementRecipients`, method: "get", suffix: "/preview", status: 200 },
  trpc: {
    operationId: "previewScopedAnnouncementRecipients",
    summary: "How many users an announcement of this scope would reach now",
    method: "get",
    input: z.strictObject(scopeFields),
    call: (input) => ({ ref: scopedRef(input), args: undefined }),
  },
});

// ---- On one announcement, in every scope (system included) ----

const cancel = scopedAction({
  scopes: allScopes,
  item: true,
  summary: (face) => `Cancel with a reason (${senderWord(face)})`,
  description: (face) => (face.scope === "system" ? "" : `Senders: ${face.senders}.`),
  ...cancelled,
  run: ({ ctx, actor, ref, announcementId, args }: ActionContext<{ reason?: string }>) =>
    cancelAnnouncement({ deps: ctx.deps, actor, ref, announcementId, reason: args.reason }),
  rest: { operationId: (face) => `cancel${face.title}Announcement`, method: "delete", status: 200, ...cancelBody },
  trpc: {
    operationId: "cancelAnnouncement",
    summary: "Cancel an announcement of any scope with a reason",
    method: "post",
    input: cancelAnnouncementSchema.extend({ ref: scopeRefSchema, id: opaqueIdSchema }).strict(),
    call: (input) => ({ ref: toRef(input.ref), announcementId: input.id, args: { reason: input.reason } }),
  },
});

const acknowledge = scopedAction({
  scopes: allScopes,
  item: true,
  summary: (face) => `Acknowledge for yourself (${face.scope === "system" ? "any recipient" : "recipients"})`,
  ...acknowledged,
  run: ({ ctx, actor, ref, announcementId }: ActionContext<unknown>) => acknowledgeAnnouncement({ deps: ctx.deps, actor, ref, announcementId }),
  rest: { operationId: (face) => `acknowledge${face.title}Announcement`, method: "post", suffix: "/acknowledge", status: 200 },
  trpc: {
    operationId: "acknowledgeAnnouncement",
    summary: "Acknowledge an announcement of any scope for yourself",
    method: "post",
    input: z.strictObject({ ref: scopeRefSchema, id: opaqueIdSchema }),
    call: (input) => ({ ref: toRef(input.ref), announcementId: input.id, args: undefined }),
  },
});

const recipients = scopedAction({
  scopes: allScopes,
  item: true,
  summary: (face) => `Recipients with delivery and acknowledgment (${senderWord(face)})`,
  description: (face) =>
    face.scope === "system"
      ? "Per recipient: `emailedAt` (delivery), `seenAt` (first shown in the app) and `acknowledgedAt`, kept apart so missed announcements stand " +
        "out. Sorted by `sort` then user id; `limit`/`cursor` page through."
      : `Same shape and parameters as the system view. Senders: ${face.senders}.`,
  output: recipientsViewSchema,
  outputDescription: "Recipients",
  responses: authedErrors,
  run: ({ ctx, actor, ref, announcementId, args }: ActionContext<z.output<typeof recipientsQuerySchema>>) =>
    getAnnouncementRecipients({ deps: ctx.deps, actor, ref, announcementId, query: args }),
  rest: { operationId: (face) => `list${face.title}AnnouncementRecipients`, method: "get", suffix: "/recipients", status: 200, query: recipientsQuerySchema },
  trpc: {
    operationId: "listAnnouncementRecipients",
    summary: "Recipients of an announcement of any scope",
    method: "get",
    input: recipientsQuerySchema.extend({ ref: scopeRefSchema, id: opaqueIdSchema }),
    call: ({ ref, id, ...query }) => ({ ref: toRef(ref), announcementId: id, args: query }),
  },
});

/** The family, registered once: its tRPC procedures by name, and every REST operation of every scope. */
const family = { createScoped: create, listActive, history, previewScoped: preview, cancel, acknowledge, recipients };
export const announcementFamilyProcedures = {
  createScoped: create.procedure,
  listActive: listActive.procedure,
  history: history.procedure,
  previewScoped: preview.procedure,
  cancel: cancel.procedure,
  acknowledge: acknowledge.procedure,
  recipients: recipients.procedure,
};
export const announcementFamilyRestOperations: AnyOperation[] = Object.values(family).flatMap((action) => action.rest);
