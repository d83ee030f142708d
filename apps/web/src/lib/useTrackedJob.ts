import { useQuery } from "@tanstack/react-query";
import { useRealtimeEvent } from "./realtime";
import { queryClient, trpc } from "../trpc";

/** A long job's record, refreshed by its `job.progress` events over /ws and polled as a fallback; `onEvent` hears each event. */
export function useTrackedJob(jobId: string | null, onEvent?: (status: string) => void) {
  const job = useQuery({
    ...trpc.admin.job.queryOptions({ id: jobId ?? "" }, { staleTime: 0 }),
    enabled: jobId !== null,
    refetchInterval: (query) => (query.state.data && (query.state.data.status === "completed" || query.state.data.status === "failed") ? false : 2000),
  });
  useRealtimeEvent("job.progress", (event) => {
    if (event.id !== jobId) return;
    void queryClient.invalidateQueries(trpc.admin.job.queryFilter({ id: event.id }));
    onEvent?.(event.status);
  });
  const data = job.data;
  const finished = data?.status === "completed" || data?.status === "failed";
  return { job: data, finished, running: jobId !== null && !finished };
}
