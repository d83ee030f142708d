import { useQuery } from "@tanstack/react-query";
import { trpc } from "../trpc";

/** The signed-in user, or null. Everything that depends on identity reads it from here. */
export function useMe() {
  return useQuery(trpc.auth.me.queryOptions(undefined, { staleTime: 60_000 }));
}

export type Me = NonNullable<ReturnType<typeof useMe>["data"]>;

export const isServerAdmin = (me: Pick<Me, "roles"> | null | undefined) => Boolean(me?.roles.includes("serverAdmin"));
