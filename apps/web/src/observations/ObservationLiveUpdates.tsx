import { useRealtimeEvent, useRealtimeReconnect } from "../lib/realtime";
import { queryClient, trpc } from "../trpc";

/** Every observation view, and the queues, night plans, forecasts and dashboard built on them, follow status changes pushed over /ws. */
export function refreshObservations() {
  return Promise.all(
    [
      trpc.observations.list,
      trpc.observations.get,
      trpc.observations.history,
      trpc.observations.files,
      trpc.observations.forecast,
      trpc.observatories.queue,
      trpc.observatories.plan,
      trpc.observatories.get,
      trpc.observatories.list,
    ].map((view) => queryClient.invalidateQueries(view.pathFilter())),
  );
}

/**
 * What reads the network plan: the night plans (Tonight), the queues' PLANNED_LATER and PLANNED_ELSEWHERE, the forecasts and
 * the plan itself, read again when the server says a new plan is in force (each reads only what its reader may see).
 */
function refreshPlanViews() {
  return Promise.all(
    [trpc.observatories.plan, trpc.observatories.queue, trpc.observations.forecast, trpc.network.plan].map((view) =>
      queryClient.invalidateQueries(view.pathFilter()),
    ),
  );
}

export function ObservationLiveUpdates() {
  useRealtimeEvent("observation.status_changed", () => void refreshObservations());
  useRealtimeEvent("network.plan_changed", () => void refreshPlanViews());
  useRealtimeReconnect(() => void refreshObservations());
  return null;
}
