import { useRealtimeEvent, useRealtimeReconnect } from "../lib/realtime";
import { queryClient, trpc } from "../trpc";

/**
 * Online and Offline follow the plugin's connection as the server pushes it over /ws: the observatory's page, the lists and the
 * dashboard, its history (online and offline entries) and its queue and plan (which wait while it is offline). When the socket
 * opens again, `ObservationLiveUpdates` reads all of them again but the history, read here: an event sent meanwhile was never heard.
 */
export function ObservatoryLiveUpdates() {
  useRealtimeEvent("observatory.connection_changed", () => {
    for (const view of [trpc.observatories.get, trpc.observatories.list, trpc.observatories.history, trpc.observatories.queue, trpc.observatories.plan])
      void queryClient.invalidateQueries(view.pathFilter());
  });
  useRealtimeReconnect(() => void queryClient.invalidateQueries(trpc.observatories.history.pathFilter()));
  return null;
}
