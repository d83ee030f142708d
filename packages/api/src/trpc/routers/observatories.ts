import { actorFromUser } from "@meridian/domain";
import {
  addObservatoryOrganization,
  addObservatoryUser,
  createObservatory,
  emailSchema,
  getMyObservatoryPermissions,
  getObservatory,
  listObservatories,
  listObservatoryHistory,
  listObservatoryMembers,
  observatoryCreateSchema,
  observatoryPermissionsInputSchema,
  observatoryTransferSchema,
  observatoryUpdateSchema,
  opaqueIdSchema,
  removeObservatoryOrganization,
  removeObservatoryUser,
  transferObservatoryOwnership,
  updateObservatory,
  updateObservatoryOrganization,
  updateObservatoryUser,
} from "@meridian/domain";
import { z } from "zod";
import { authedProcedure, router } from "../init";
import { pageInput } from "../page-input";

const id = opaqueIdSchema;
const page = pageInput;
const procedure = authedProcedure;

export const observatoriesRouter = router({
  list: procedure.input(z.strictObject(page).optional()).query(({ ctx, input }) => listObservatories({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), limit: input?.limit ?? 50, cursor: input?.cursor ?? undefined })),
  create: procedure.input(observatoryCreateSchema).mutation(({ ctx, input }) => createObservatory({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), input })),
  get: procedure.input(z.strictObject({ id })).query(({ ctx, input }) => getObservatory({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), observatoryId: input.id })),
  update: procedure
    .input(z.strictObject({ id, update: observatoryUpdateSchema }))
    .mutation(({ ctx, input }) => updateObservatory({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), observatoryId: input.id, input: input.update })),
  myPermissions: procedure.input(z.strictObject({ id })).query(({ ctx, input }) => getMyObservatoryPermissions({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), observatoryId: input.id })),
  members: procedure.input(z.strictObject({ id })).query(({ ctx, input }) => listObservatoryMembers({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), observatoryId: input.id })),
  history: procedure.input(z.strictObject({ id, ...page })).query(({ ctx, input }) => listObservatoryHistory({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), observatoryId: input.id, limit: input.limit, cursor: input.cursor ?? undefined })),
  transferOwnership: procedure
    .input(z.strictObject({ id, to: observatoryTransferSchema }))
    .mutation(({ ctx, input }) => transferObservatoryOwnership({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), observatoryId: input.id, to: input.to })),
  addUser: procedure
    .input(z.strictObject({ id, email: emailSchema, permissions: observatoryPermissionsInputSchema.optional() }))
    .mutation(({ ctx, input }) => addObservatoryUser({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), observatoryId: input.id, email: input.email, permissions: input.permissions })),
  updateUser: procedure
    .input(z.strictObject({ id, userId: id, permissions: observatoryPermissionsInputSchema }))
    .mutation(({ ctx, input }) => updateObservatoryUser({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), observatoryId: input.id, userId: input.userId, permissions: input.permissions })),
  removeUser: procedure.input(z.strictObject({ id, userId: id })).mutation(async ({ ctx, input }) => {
    await removeObservatoryUser({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), observatoryId: input.id, userId: input.userId });
    return { ok: true as const };
  }),
  addOrganization: procedure
    .input(z.strictObject({ id, organizationId: id, permissions: observatoryPermissionsInputSchema.optional() }))
    .mutation(({ ctx, input }) => addObservatoryOrganization({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), observatoryId: input.id, organizationId: input.organizationId, permissions: input.permissions })),
  updateOrganization: procedure
    .input(z.strictObject({ id, organizationId: id, permissions: observatoryPermissionsInputSchema }))
    .mutation(({ ctx, input }) => updateObservatoryOrganization({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), observatoryId: input.id, organizationId: input.organizationId, permissions: input.permissions })),
  removeOrganization: procedure.input(z.strictObject({ id, organizationId: id })).mutation(async ({ ctx, input }) => {
    await removeObservatoryOrganization({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), observatoryId: input.id, organizationId: input.organizationId });
    return { ok: true as const };
  }),
});
