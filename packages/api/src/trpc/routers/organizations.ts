import { actorFromUser } from "@meridian/domain";
import {
  addOrganizationMember,
  addOrganizationMemberSchema,
  createOrganization,
  deleteOrganization,
  getOrganization,
  listOrganizationAudit,
  listOrganizationMembers,
  listOrganizations,
  opaqueIdSchema,
  organizationCreateSchema,
  organizationPermissionsInputSchema,
  organizationUpdateSchema,
  removeOrganizationMember,
  transferOrganizationOwnership,
  updateOrganization,
  updateOrganizationMember,
} from "@meridian/domain";
import { z } from "zod";
import { authedProcedure, router } from "../init";
import { pageInput } from "../page-input";

const id = opaqueIdSchema;
const procedure = authedProcedure;

export const organizationsRouter = router({
  list: procedure.input(z.strictObject({ all: z.boolean().optional() }).optional()).query(({ ctx, input }) => listOrganizations({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), all: input?.all })),
  create: procedure.input(organizationCreateSchema).mutation(({ ctx, input }) => createOrganization({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), input })),
  get: procedure.input(z.strictObject({ id })).query(({ ctx, input }) => getOrganization({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), organizationId: input.id })),
  update: procedure
    .input(z.strictObject({ id, update: organizationUpdateSchema }))
    .mutation(({ ctx, input }) => updateOrganization({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), organizationId: input.id, input: input.update })),
  members: procedure.input(z.strictObject({ id })).query(({ ctx, input }) => listOrganizationMembers({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), organizationId: input.id })),
  addMember: procedure
    .input(addOrganizationMemberSchema.extend({ id }))
    .mutation(({ ctx, input }) => addOrganizationMember({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), organizationId: input.id, email: input.email, permissions: input.permissions })),
  updateMember: procedure
    .input(z.strictObject({ id, userId: id, permissions: organizationPermissionsInputSchema }))
    .mutation(({ ctx, input }) => updateOrganizationMember({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), organizationId: input.id, userId: input.userId, permissions: input.permissions })),
  removeMember: procedure.input(z.strictObject({ id, userId: id })).mutation(async ({ ctx, input }) => {
    await removeOrganizationMember({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), organizationId: input.id, userId: input.userId });
    return { ok: true as const };
  }),
  transferOwnership: procedure
    .input(z.strictObject({ id, userId: id }))
    .mutation(({ ctx, input }) => transferOrganizationOwnership({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), organizationId: input.id, userId: input.userId })),
  delete: procedure.input(z.strictObject({ id })).mutation(async ({ ctx, input }) => {
    await deleteOrganization({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), organizationId: input.id });
    return { ok: true as const };
  }),
  audit: procedure
    .input(z.strictObject({ id, ...pageInput }))
    .query(({ ctx, input }) => listOrganizationAudit({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), organizationId: input.id, limit: input.limit, cursor: input.cursor ?? undefined })),
});
