import { useQuery } from "@tanstack/react-query";
import { trpc } from "../trpc";

/** An observatory's zone, from the read its page (or another) already made; undefined until it is there or when it cannot be read. */
export function useObservatoryTimeZone(observatoryId: string): string | undefined {
  return useQuery(trpc.observatories.get.queryOptions({ id: observatoryId }, { retry: false })).data?.timeZone;
}
