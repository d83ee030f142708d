import {
  apiKeyCreateSchema,
  changePassword,
  changePasswordSchema,
  createApiKey,
  getProfile,
  listApiKeys,
  listMySessions,
  opaqueIdSchema,
  profileUpdateSchema,
  revokeApiKey,
  revokeMySession,
  revokeOtherSessions,
  sessionIdSchema,
  updateProfile,
} from "@meridian/domain";
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
  changePassword: authedProcedure.input(changePasswordSchema).mutation(async ({ ctx, input }) => {
    await changePassword({ deps: ctx.deps, principal: ctx.principal, input });
    return { ok: true as const };
  }),
  sessions: authedProcedure.query(({ ctx }) => listMySessions({ deps: ctx.deps, principal: ctx.principal })),
  revokeSession: authedProcedure.input(sessionIdSchema).mutation(async ({ ctx, input }) => {
    await revokeMySession({ deps: ctx.deps, principal: ctx.principal, sessionId: input.id });
    return { ok: true as const };
  }),
  revokeOtherSessions: authedProcedure.mutation(async ({ ctx }) => {
    await revokeOtherSessions({ deps: ctx.deps, principal: ctx.principal });
    return { ok: true as const };
  }),
});
