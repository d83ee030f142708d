import { addProjectMember, addProjectMemberSchema, createProject, deleteProject, getProject, listProjectMembers, listProjects, opaqueIdSchema, projectCreateSchema, projectUpdateSchema, removeProjectMember, updateProject, updateProjectMemberRole, updateProjectMemberSchema } from "@meridian/domain";
import { z } from "zod";
import { callerProcedure, router } from "../init";

const id = opaqueIdSchema;
const procedure = callerProcedure;

export const projectsRouter = router({
  list: procedure.query(({ ctx }) => listProjects({ deps: ctx.deps, caller: ctx.caller })),
  create: procedure.input(projectCreateSchema).mutation(({ ctx, input }) => createProject({ deps: ctx.deps, caller: ctx.caller, input })),
  get: procedure.input(z.strictObject({ id })).query(({ ctx, input }) => getProject({ deps: ctx.deps, caller: ctx.caller, projectId: input.id })),
  update: procedure.input(z.strictObject({ id, update: projectUpdateSchema })).mutation(({ ctx, input }) => updateProject({ deps: ctx.deps, caller: ctx.caller, projectId: input.id, input: input.update })),
  members: procedure.input(z.strictObject({ id })).query(({ ctx, input }) => listProjectMembers({ deps: ctx.deps, caller: ctx.caller, projectId: input.id })),
  addMember: procedure.input(addProjectMemberSchema.extend({ id })).mutation(({ ctx, input }) => addProjectMember({ deps: ctx.deps, caller: ctx.caller, projectId: input.id, email: input.email, role: input.role })),
  removeMember: procedure.input(z.strictObject({ id, userId: id })).mutation(async ({ ctx, input }) => {
    await removeProjectMember({ deps: ctx.deps, caller: ctx.caller, projectId: input.id, userId: input.userId });
    return { ok: true as const };
  }),
  updateMember: procedure
    .input(updateProjectMemberSchema.extend({ id, userId: id }))
    .mutation(({ ctx, input }) => updateProjectMemberRole({ deps: ctx.deps, caller: ctx.caller, projectId: input.id, userId: input.userId, role: input.role })),
  delete: procedure.input(z.strictObject({ id })).mutation(async ({ ctx, input }) => {
    await deleteProject({ deps: ctx.deps, caller: ctx.caller, projectId: input.id });
    return { ok: true as const };
  }),
});
