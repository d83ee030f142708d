import { apiKeyCreateSchema, createApiKey, getProfile, listApiKeys, opaqueIdSchema, profileUpdateSchema, revokeApiKey, updateProfile } from "@meridian/domain";
import { z } from "zod";
import { authedProcedure, router } from "../init";

export const userRouter = router({
  profile: authedProcedure.query(({ ctx }) => getProfile({ user: ctx.principal.user })),
  updateProfile: authedProcedure.input(profileUpdateSchema).mutation(({ ctx, input }) => updateProfile({ deps: ctx.deps, userId: ctx.principal.user.id, update: input })),
  apiKeys: authedProcedure.query(({ ctx }) => listApiKeys({ deps: ctx.deps, userId: ctx.principal.user.id })),
  createApiKey: authedProcedure.input(apiKeyCreateSchema).mutation(({ ctx, input }) => createApiKey({ deps: ctx.deps, userId: ctx.principal.user.id, name: input.name })),
  revokeApiKey: authedProcedure
    .input(z.strictObject({ id: opaqueIdSchema }))
    .mutation(async ({ ctx, input }) => {
      await revokeApiKey({ deps: ctx.deps, userId: ctx.principal.user.id, keyId: input.id });
      return { ok: true as const };
    }),
});
