import { useRealtimeEvent, useRealtimeReconnect } from "../lib/realtime";
import { queryClient, trpc } from "../trpc";

type View = { pathFilter(): { queryKey: readonly unknown[] } };

/** Every observation view, and the queues, night plans, forecasts and dashboard built on them. */
const observationViews: View[] = [
  trpc.observations.list,
  trpc.observations.get,
  trpc.observations.history,
  trpc.observations.files,
  trpc.observations.forecast,
  trpc.observatories.queue,
  trpc.observatories.plan,
  trpc.observatories.get,
  trpc.observatories.list,
];

/**
 * What reads the network plan: the night plans (Tonight), the queues' PLANNED_LATER and PLANNED_ELSEWHERE, the forecasts,
 * the plan itself and an observation's place in it (each reads only what its reader may see).
 */
const planViews: View[] = [trpc.observatories.plan, trpc.observatories.queue, trpc.observations.forecast, trpc.network.plan, trpc.network.observationPlace];

const refresh = (views: Iterable<View>) => Promise.all([...views].map((view) => queryClient.invalidateQueries(view.pathFilter())));

/** Every observation view follows status changes pushed over /ws (and the changes this tab makes itself). */
export function refreshObservations() {
  return refresh(observationViews);
}

/**
 * Status changes and new plans pushed over /ws. Whenever the socket opens (after a drop too) both kinds of view are read
 * again, each once: an event sent while it was down was never heard.
 */
export function ObservationLiveUpdates() {
  useRealtimeEvent("observation.status_changed", () => void refreshObservations());
  useRealtimeEvent("network.plan_changed", () => void refresh(planViews));
  useRealtimeReconnect(() => void refresh(new Set([...observationViews, ...planViews])));
  return null;
}
