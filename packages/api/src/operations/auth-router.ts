import { presentUser, userSchema } from "@meridian/domain/users";
import { serializedThroughSchema } from "../http/response-serializer";
import { publicProcedure, router } from "../trpc/init";
import { authOperations } from "./auth";
import { proceduresOf } from "./trpc-adapter";

export const authRouter = router({
  ...proceduresOf(authOperations),
  /** tRPC only: null when signed out, so the SPA can ask without an error (REST GET /auth/me answers 401). */
  me: publicProcedure
    .output((answer) => serializedThroughSchema("me", userSchema.nullable(), answer))
    .query(({ ctx }) => (ctx.principal ? presentUser(ctx.principal.user) : null)),
});
