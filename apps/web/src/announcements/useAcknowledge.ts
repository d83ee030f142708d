import { useMutation } from "@tanstack/react-query";
import { summarizeError } from "../lib/errors";
import { queryClient, trpc } from "../trpc";
import { refreshAnnouncements } from "./refresh";
import { refOf, type Announcement } from "./types";

const pendingKey = () => trpc.announcements.pending.queryKey();

/** Failures that mean there is nothing left to acknowledge. */
const GONE = new Set(["INVALID_TRANSITION", "NOT_FOUND"]);

/** Drops an announcement from the caller's pending list at once, before the lists are refetched. */
function forgetPending(id: string) {
  queryClient.setQueryData(pendingKey(), (current) => (current ? { ...current, items: current.items.filter((item) => item.id !== id) } : current));
}

/**
 * Acknowledging for oneself. An announcement cancelled or expired meanwhile (409) or gone (404)
 * needs no acknowledgment any more: it leaves the pending list just the same.
 */
export function useAcknowledge() {
  const mutation = useMutation(
    trpc.announcements.acknowledge.mutationOptions({
      onSuccess: (_result, variables) => forgetPending(variables.id),
      onError: (error, variables) => {
        if (GONE.has(summarizeError(error).code ?? "")) forgetPending(variables.id);
      },
      onSettled: () => refreshAnnouncements(),
    }),
  );
  return {
    mutation,
    acknowledge: (announcement: Announcement) => mutation.mutate({ ref: refOf(announcement), id: announcement.id }),
    /** The announcement being acknowledged right now, to show its button busy. */
    busyId: mutation.isPending ? mutation.variables?.id : undefined,
    /** Why the last acknowledgment failed, unless it failed because none was needed any more. */
    error: mutation.isError && !GONE.has(summarizeError(mutation.error).code ?? "") ? summarizeError(mutation.error).message : null,
  };
}
