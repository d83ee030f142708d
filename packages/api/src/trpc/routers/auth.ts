import {
  confirmPasswordReset,
  deleteSessionByToken,
  login,
  loginInputSchema,
  passwordResetConfirmSchema,
  passwordResetRequestSchema,
  presentUser,
  requestPasswordReset,
  signup,
  signupInputSchema,
} from "@meridian/domain";
import { authedProcedure, publicProcedure, router } from "../init";

export const authRouter = router({
  signup: publicProcedure.input(signupInputSchema).mutation(async ({ ctx, input }) => {
    const result = await signup({ deps: ctx.deps, input, client: ctx.client });
    ctx.setSessionToken(result.token);
    return result;
  }),
  login: publicProcedure.input(loginInputSchema).mutation(async ({ ctx, input }) => {
    const result = await login({ deps: ctx.deps, input, client: ctx.client });
    ctx.setSessionToken(result.token);
    return result;
  }),
  logout: authedProcedure.mutation(async ({ ctx }) => {
    if (ctx.principal.via === "session" && ctx.token) await deleteSessionByToken({ deps: ctx.deps, token: ctx.token });
    ctx.setSessionToken(null);
    return { ok: true as const };
  }),
  requestPasswordReset: publicProcedure.input(passwordResetRequestSchema).mutation(async ({ ctx, input }) => {
    await requestPasswordReset({ deps: ctx.deps, email: input.email, client: ctx.client, appUrl: ctx.linkOrigin });
    return { ok: true as const };
  }),
  confirmPasswordReset: publicProcedure.input(passwordResetConfirmSchema).mutation(async ({ ctx, input }) => {
    await confirmPasswordReset({ deps: ctx.deps, token: input.token, newPassword: input.newPassword });
    return { ok: true as const };
  }),
  /** Null when signed out, so the SPA can ask without an error. */
  me: publicProcedure.query(({ ctx }) => (ctx.principal ? presentUser(ctx.principal.user) : null)),
});
