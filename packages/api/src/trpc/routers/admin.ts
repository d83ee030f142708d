import { actorFromUser } from "@meridian/domain";
import { adminUserListQuerySchema, adminUserUpdateSchema, listUsersForAdmin, opaqueIdSchema, updateUserByAdmin } from "@meridian/domain";
import { z } from "zod";
import { adminProcedure, router } from "../init";
import { pageInput } from "../page-input";

export const adminRouter = router({
  users: adminProcedure
    .input(z.strictObject({ q: adminUserListQuerySchema.shape.q, ...pageInput }).optional())
    .query(({ ctx, input }) => listUsersForAdmin({ deps: ctx.deps, q: input?.q, limit: input?.limit ?? 50, cursor: input?.cursor ?? undefined })),
  updateUser: adminProcedure
    .input(adminUserUpdateSchema.extend({ id: opaqueIdSchema }))
    .mutation(({ ctx, input }) => {
      const { id, ...update } = input;
      return updateUserByAdmin({ deps: ctx.deps, actor: actorFromUser(ctx.principal.user), userId: id, input: update });
    }),
});
