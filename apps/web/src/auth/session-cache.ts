import { hashKey } from "@tanstack/react-query";
import { queryClient, trpc } from "../trpc";
import type { Me } from "./useMe";

/** On sign-in or sign-out: nothing cached for the previous user survives; `me` is the new identity. */
export function resetSessionCache(user: Me | null) {
  const meKey = trpc.auth.me.queryKey();
  const meHash = hashKey(meKey);
  queryClient.setQueryData(meKey, user);
  queryClient.removeQueries({ predicate: (query) => query.queryHash !== meHash });
}
