import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useSearchParams } from "react-router-dom";
import { useTimeDisplay } from "../../lib/time-display";
import { Alert } from "../../components/Alert";
import { Card } from "../../components/Card";
import { QueryState } from "../../components/QueryState";
import { Toggle } from "../../components/Toggle";
import { useNow } from "../../lib/useNow";
import { dayName } from "../../lib/zone-time";
import { trpc } from "../../trpc";
import type { Observatory } from "../permissions";
import { AltitudeChart, type ChartCurve } from "./AltitudeChart";
import type { NightPlan } from "./night-plan";
import { NightPicker } from "./NightPicker";
import { NightSummary } from "./NightSummary";
import { PlanTable } from "./PlanTable";
import { Timeline } from "./Timeline";
import { TimelineLegend } from "./TimelineLegend";
import { UnscheduledList } from "./UnscheduledList";

const NIGHT_PARAM = /^\d{4}-\d{2}-\d{2}$/;
/** The night plan: read again each minute, and at once when an observation moves or a new network plan is in force (ObservationLiveUpdates). */
const REFRESH_MS = 60_000;

/**
 * The observatory's night as dispatch will run it: a night picker (kept in the address as
 * `?night=`), the timeline or its table, the altitude of each observation's first target and what the
 * night leaves out.
 */
export function TonightView({ observatory }: { observatory: Observatory }) {
  useTimeDisplay();
  const [params, setParams] = useSearchParams();
  const requested = params.get("night");
  const current = useQuery(trpc.observatories.plan.queryOptions({ id: observatory.id }, { staleTime: 0, refetchInterval: REFRESH_MS }));
  const tonight = current.data?.date;
  const other = requested && NIGHT_PARAM.test(requested) && tonight !== undefined && requested !== tonight ? requested : null;
  const picked = useQuery(
    trpc.observatories.plan.queryOptions(
      { id: observatory.id, night: other ?? undefined },
      { enabled: other !== null, staleTime: 0, refetchInterval: REFRESH_MS },
    ),
  );
  const choose = (date: string) =>
    setParams(
      (present) => {
        const next = new URLSearchParams(present);
        if (date === tonight) next.delete("night");
        else next.set("night", date);
        return next;
      },
      { replace: true },
    );
  // The reader's choice of view holds as nights are picked (each night's plan mounts anew).
  const [asTable, setAsTable] = useState(false);
  const [allCurves, setAllCurves] = useState(false);
  const held = [
    observatory.connection.online ? null : "The observatory is offline: this plan assumes it comes back.",
    observatory.dispatchEnabled ? null : "Dispatch is switched off: this plan assumes it is switched on.",
  ].filter((note) => note !== null);
  return (
    <div className="flex flex-col gap-4">
      {tonight ? <NightPicker first={tonight} value={other ?? tonight} onChange={choose} /> : null}
      {held.map((note) => (
        <Alert key={note} tone="info">
          {note}
        </Alert>
      ))}
      <QueryState query={other ? picked : current} loading="Planning the night" error="Could not plan the night">
        {(plan) => (
          <NightPlanView
            plan={plan}
            isTonight={plan.date === tonight}
            asTable={asTable}
            onTable={setAsTable}
            allCurves={allCurves}
            onAllCurves={setAllCurves}
          />
        )}
      </QueryState>
    </div>
  );
}

interface ViewChoices {
  asTable: boolean;
  onTable(asTable: boolean): void;
  allCurves: boolean;
  onAllCurves(allCurves: boolean): void;
}

function NightPlanView({ plan, isTonight, asTable, onTable, allCurves, onAllCurves }: { plan: NightPlan; isTonight: boolean } & ViewChoices) {
  const [highlighted, setHighlighted] = useState<string | null>(null);
  const now = useNow(REFRESH_MS);
  const night = plan.night;
  const names = new Map([...plan.slots, ...plan.unscheduled].map((item) => [item.observationId, item.name]));
  const slots = new Map(plan.slots.map((slot) => [slot.observationId, slot]));
  const shown = plan.altitude.filter((curve) => allCurves || slots.has(curve.observationId));
  const curves: ChartCurve[] = shown.map((curve) => ({
    curve,
    name: names.get(curve.observationId) ?? curve.observationId,
    target: curve.target,
    slot: slots.get(curve.observationId) ?? null,
  }));
  const showsNow = isTonight && night !== null && now >= Date.parse(night.sunset) && now <= Date.parse(night.sunrise);
  return (
    <>
      <Card title={`Night of ${dayName(plan.date)}`}>
        <div className="flex flex-col gap-4">
          {night ? (
            <NightSummary plan={plan} night={night} />
          ) : (
            <Alert tone="info">
              This observatory has no location, so its nights have no darkness or altitudes to plan by: observations run in order whenever it is free. Set its
              location in Settings.
            </Alert>
          )}
          {night ? <Toggle label="Table view" description="The plan as a table of times" checked={asTable} onChange={onTable} /> : null}
          {night && !asTable ? (
            <>
              <Timeline plan={plan} night={night} now={showsNow ? now : null} highlighted={highlighted} onHighlight={setHighlighted} />
              <TimelineLegend showsNow={showsNow} />
            </>
          ) : (
            <PlanTable plan={plan} onHighlight={setHighlighted} />
          )}
        </div>
      </Card>
      {night && plan.altitude.length > 0 ? (
        <Card
          title="Altitude"
          description="The height of each observation's first target (its only one drawn) through the night; the dashed line is its minimum altitude."
        >
          <div className="flex flex-col gap-2">
            <AltitudeChart night={night} zone={plan.timeZone} curves={curves} highlighted={highlighted} onHighlight={setHighlighted} />
            {plan.unscheduled.length > 0 ? <Toggle label="Show unplanned targets too" checked={allCurves} onChange={onAllCurves} /> : null}
          </div>
        </Card>
      ) : null}
      <Card title="Not planned this night">
        <UnscheduledList plan={plan} />
      </Card>
    </>
  );
}
