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

export function ObservationLiveUpdates() {
  useRealtimeEvent("observation.status_changed", () => void refreshObservations());
  useRealtimeReconnect(() => void refreshObservations());
  return null;
}
