import { actorFromUser } from "@meridian/domain";
import {
  acknowledgeAnnouncement,
  announcementTargetsInputSchema,
  cancelAnnouncement,
  countActiveObservatoryAnnouncements,
  createScopedAnnouncement,
  createSystemAnnouncement,
  getAnnouncementRecipients,
  getAnnouncementStats,
  listAnnouncementTargetOptions,
  listManagedAnnouncements,
  listMyCurrentAnnouncements,
  listPendingAnnouncements,
  listQuerySchema,
  listScopeActiveAnnouncements,
  listScopeAnnouncementHistory,
  listSystemAnnouncements,
  markAnnouncementsSeen,
  markSeenSchema,
  opaqueIdSchema,
  previewScopedRecipients,
  previewSystemRecipients,
  recipientsQuerySchema,
  scopedAnnouncementCreateSchema,
  systemAnnouncementCreateSchema,
  targetOptionKindSchema,
  type AnnouncementScopeRef,
} from "@meridian/domain";
import { z } from "zod";
import { authedProcedure as procedure, router } from "../init";

const id = opaqueIdSchema;
const scopedKind = z.enum(["observatory", "organization", "project"]);
const anyScope = z.enum(["system", "observatory", "organization", "project"]);
/** `{scope: "system"}` or `{scope, scopeId}`: the same procedures serve all four scopes. */
const scopeRefSchema = z.discriminatedUnion("scope", [
  z.strictObject({ scope: z.literal("system") }),
  z.strictObject({ scope: scopedKind, scopeId: id }),
]);
const toRef = (input: z.infer<typeof scopeRefSchema>): AnnouncementScopeRef =>
  input.scope === "system" ? { scope: "system", scopeId: null } : { scope: input.scope, scopeId: input.scopeId };

export const announcementsRouter = router({
  pending: procedure.query(({ ctx }) => listPendingAnnouncements({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user) })),
  current: procedure
    .input(z.strictObject({ scope: anyScope.optional() }).optional())
    .query(({ ctx, input }) => listMyCurrentAnnouncements({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), scope: input?.scope })),
  markSeen: procedure.input(markSeenSchema).mutation(({ ctx, input }) => markAnnouncementsSeen({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), ids: input.ids })),
  observatoryCounts: procedure.query(({ ctx }) => countActiveObservatoryAnnouncements({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user) })),
  managed: procedure
    .input(listQuerySchema.extend({ scope: anyScope }))
    .query(({ ctx, input: { scope, ...query } }) => listManagedAnnouncements({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), scope, query })),
  stats: procedure.query(({ ctx }) => getAnnouncementStats({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user) })),
  targetOptions: procedure
    .input(z.strictObject({ kind: targetOptionKindSchema, q: z.string().max(200).optional(), limit: z.number().int().min(1).max(100).optional() }))
    .query(({ ctx, input }) => listAnnouncementTargetOptions({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), kind: input.kind, search: input.q, limit: input.limit })),
  previewSystem: procedure
    .input(z.strictObject({ targets: announcementTargetsInputSchema }))
    .query(({ ctx, input }) => previewSystemRecipients({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), targets: input.targets })),
  previewScoped: procedure
    .input(z.strictObject({ scope: scopedKind, scopeId: id }))
    .query(({ ctx, input }) => previewScopedRecipients({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), ref: toRef(input) })),
  createSystem: procedure.input(systemAnnouncementCreateSchema).mutation(({ ctx, input }) => createSystemAnnouncement({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), input })),
  createScoped: procedure
    .input(z.strictObject({ scope: scopedKind, scopeId: id, announcement: scopedAnnouncementCreateSchema }))
    .mutation(({ ctx, input }) => createScopedAnnouncement({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), ref: toRef(input), input: input.announcement })),
  listSystem: procedure.input(listQuerySchema).query(({ ctx, input }) => listSystemAnnouncements({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), query: input })),
  listActive: procedure
    .input(z.strictObject({ scope: scopedKind, scopeId: id }))
    .query(({ ctx, input }) => listScopeActiveAnnouncements({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), ref: { scope: input.scope, scopeId: input.scopeId } })),
  history: procedure
    .input(listQuerySchema.extend({ scope: scopedKind, scopeId: id }))
    .query(({ ctx, input: { scope, scopeId, ...query } }) => listScopeAnnouncementHistory({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), ref: { scope, scopeId }, query })),
  cancel: procedure
    .input(z.strictObject({ ref: scopeRefSchema, id, reason: z.string().max(2_000).optional() }))
    .mutation(({ ctx, input }) => cancelAnnouncement({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), ref: toRef(input.ref), announcementId: input.id, reason: input.reason })),
  acknowledge: procedure
    .input(z.strictObject({ ref: scopeRefSchema, id }))
    .mutation(({ ctx, input }) => acknowledgeAnnouncement({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), ref: toRef(input.ref), announcementId: input.id })),
  recipients: procedure
    .input(recipientsQuerySchema.extend({ ref: scopeRefSchema, id }))
    .query(({ ctx, input: { ref, id: announcementId, ...query } }) => getAnnouncementRecipients({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), ref: toRef(ref), announcementId, query })),
});
