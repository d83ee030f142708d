import type { ReactNode } from "react";
import { formatDuration } from "@meridian/rules";
import { Card } from "../components/Card";
import { Time } from "../components/Time";
import { intervalText } from "./cadence-text";
import type { Observation } from "./labels";

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

function Item({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div>
      <dt className="text-xs font-medium text-slate-500">{term}</dt>
      <dd className="mt-0.5 text-sm text-slate-900">{children}</dd>
    </div>
  );
}

/**
 * How long a run takes (the API's estimate with its observatory's slew and readout settings), its
 * time window, and for a monitoring observation its cadence and runs; times in the observatory's zone.
 */
export function ObservationTiming({ observation, timeZone }: { observation: Observation; timeZone: string | undefined }) {
  const { monitoring, monitoringRuns } = observation;
  const nextRun =
    monitoring && monitoringRuns && observation.status === "pending"
      ? new Date(Date.parse(monitoringRuns.lastEndedAt) + monitoring.intervalMinutes * 60_000).toISOString()
      : null;
  return (
    <Card title="Timing">
      <dl className="grid grid-cols-2 gap-3">
        <Item term="Estimated duration">{formatDuration(observation.estimatedSeconds)}</Item>
        <Item term="Time zone">{timeZone ?? "—"}</Item>
        <Item term="Not before">
          <Time iso={observation.fixedTimeStart} zone={timeZone} />
        </Item>
        <Item term="Not after">
          <Time iso={observation.fixedTimeEnd} zone={timeZone} />
        </Item>
        {monitoring ? (
          <>
            <Item term="Repeats">{intervalText(monitoring.intervalMinutes)}</Item>
            <Item term="Runs">
              {monitoringRuns?.count ?? 0}
              {monitoring.maxRuns != null ? ` of ${monitoring.maxRuns}` : ""}
            </Item>
            <Item term="Until">{monitoring.until ? <Time iso={monitoring.until} zone={timeZone} /> : "No end"}</Item>
            <Item term="Last run ended">
              <Time iso={monitoringRuns?.lastEndedAt} zone={timeZone} fallback="Not run yet" />
            </Item>
            {nextRun ? (
              <Item term="Next run">
                not before <Time iso={nextRun} zone={timeZone} />
              </Item>
            ) : null}
          </>
        ) : observation.isMonitoring ? (
          <Item term="Repeats">after each run, as soon as it is eligible ({plural(monitoringRuns?.count ?? 0, "run")} so far)</Item>
        ) : null}
      </dl>
    </Card>
  );
}
