import type { AppRouter } from "@meridian/api/client";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { MAX_TRPC_BATCH } from "@meridian/rules";
import { createTRPCOptionsProxy } from "@trpc/tanstack-react-query";
import { ChangeFollowingQueryClient } from "./lib/query-client";

export type { AppRouter };

export const queryClient = new ChangeFollowingQueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      refetchOnWindowFocus: false,
      // Auth and validation failures will not get better by retrying.
      retry: (failureCount, error) => failureCount < 2 && !isClientFailure(error),
    },
  },
});

function isClientFailure(error: unknown): boolean {
  const status = (error as { data?: { httpStatus?: number } } | null)?.data?.httpStatus;
  return typeof status === "number" && status >= 400 && status < 500;
}

/** Same origin: the HttpOnly `session` cookie travels with every call. */
export const trpcClient = createTRPCClient<AppRouter>({
  links: [httpBatchLink({ url: "/trpc", maxItems: MAX_TRPC_BATCH, fetch: (input, init) => fetch(input, { ...init, credentials: "same-origin" }) })],
});

export const trpc = createTRPCOptionsProxy<AppRouter>({ client: trpcClient, queryClient });
