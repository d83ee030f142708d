import { useQuery } from "@tanstack/react-query";
import { Telescope } from "lucide-react";
import { useMemo } from "react";
import { EmptyState } from "../components/EmptyState";
import { PageHeader } from "../components/PageHeader";
import { QueryState } from "../components/QueryState";
import { useDocumentTitle } from "../lib/document-title";
import { formatShortDateTime } from "../lib/format";
import { useRealtimeEvent, useRealtimeReconnect } from "../lib/realtime";
import { useTimeDisplay } from "../lib/time-display";
import { viewerZoneWords, type NetworkPlan } from "../network/network-plan";
import { NetworkTimeline } from "../network/NetworkTimeline";
import { UnscheduledList } from "../network/UnscheduledList";
import { queryClient, trpc } from "../trpc";

/**
 * The plan is read again at once when the server says a new one is in force (`network.plan_changed`) and whenever the socket
 * opens again (an event sent while it was down is never heard), and besides this often and when the window regains focus:
 * a server that publishes no event is followed too.
 */
const PLAN_REFRESH_MS = 30_000;

/** `refreshMs`: how often the plan is read again (a test shortens it). */
export function NetworkPage({ refreshMs = PLAN_REFRESH_MS }: { refreshMs?: number }) {
  useDocumentTitle("Network");
  useTimeDisplay();
  const plan = useQuery(trpc.network.plan.queryOptions({}, { staleTime: 0, refetchInterval: refreshMs, refetchOnWindowFocus: true }));
  // Names for the plan's ids, from lists the app already asks for: observatories, and the pending observations with their projects.
  const observatories = useQuery(trpc.observatories.list.queryOptions({ limit: 50 }));
  const pending = useQuery(trpc.observations.list.queryOptions({ status: "pending", limit: 200 }, { staleTime: 0, refetchInterval: refreshMs }));
  // Only when, not what: the plan is read again, with the observations it may name for the first time.
  const refreshPlan = () => {
    void queryClient.invalidateQueries(trpc.network.plan.pathFilter());
    void queryClient.invalidateQueries(trpc.observations.list.queryFilter({ status: "pending", limit: 200 }));
  };
  useRealtimeEvent("network.plan_changed", refreshPlan);
  useRealtimeReconnect(refreshPlan);
  // Looked up for every block on every draw (the now-line redraws the timeline), so by id rather than by a search of the lists.
  const observatoryNames = useMemo(() => new Map(observatories.data?.items.map((item) => [item.id, item.name])), [observatories.data]);
  const pendingById = useMemo(() => new Map(pending.data?.items.map((item) => [item.id, item])), [pending.data]);
  const observatoryName = (id: string) => observatoryNames.get(id) ?? id;
  const observation = (id: string) => pendingById.get(id);

  return (
    <>
      <PageHeader title="Network" description="Where and when each pending observation runs, over the plan's horizon, at every observatory you may view." />
      <QueryState query={plan} loading="Loading the network plan" error="Could not load the network plan">
        {(data: NetworkPlan) => (
          <PlanView
            plan={data}
            refreshMs={refreshMs}
            observatoryName={observatoryName}
            observationName={(id) => observation(id)?.name}
            colourKey={(slot) => observation(slot.observationId)?.projectId ?? slot.observationId}
          />
        )}
      </QueryState>
    </>
  );
}

interface PlanViewProps {
  plan: NetworkPlan;
  refreshMs: number;
  observatoryName(id: string): string;
  observationName(id: string): string | undefined;
  colourKey(slot: NetworkPlan["slots"][number]): string;
}

function PlanView({ plan, refreshMs, observatoryName, observationName, colourKey }: PlanViewProps) {
  if (plan.computedAt === null || plan.horizonEnd === null) return <EmptyState icon={Telescope} title="The plan is being made" />;
  if (plan.observatories.length === 0)
    return (
      <EmptyState icon={Telescope} title="No observatories">
        The plan covers the observatories you may view; there are none yet.
      </EmptyState>
    );
  return (
    <div className="space-y-6">
      <p className="text-sm text-slate-600">
        Times in {viewerZoneWords()}. Planned at {formatShortDateTime(plan.computedAt)}, up to {formatShortDateTime(plan.horizonEnd)}; shown as soon as a new
        plan is made, and refreshed every {refreshMs / 1000} seconds.
      </p>
      <NetworkTimeline plan={plan} observatoryName={observatoryName} colourKey={colourKey} />
      <section aria-labelledby="unscheduled-title" className="space-y-2">
        <h2 id="unscheduled-title" className="text-base font-semibold text-slate-900">
          Not in the plan
        </h2>
        <UnscheduledList unscheduled={plan.unscheduled} observatoryName={observatoryName} observationName={observationName} />
      </section>
    </div>
  );
}
