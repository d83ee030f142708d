/** Procedures one tRPC request may batch: the server answers a larger batch 400, and the SPA's client never sends one. */
export const MAX_TRPC_BATCH = 50;
