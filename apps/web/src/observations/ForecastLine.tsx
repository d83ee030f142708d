import { useQuery } from "@tanstack/react-query";
import { Clock } from "lucide-react";
import { activeStatuses } from "@meridian/rules";
import { useTimeDisplay } from "../lib/time-display";
import { comingHours, dayName, shiftDate, zoneClock, zoneDate, zoneLabel, zoneMoment } from "../lib/zone-time";
import type { RouterOutputs } from "../organizations/types";
import { trpc } from "../trpc";
import type { Observation } from "./labels";
import { PlanPlace } from "./PlanPlace";
import { lowerFirst, reasonInWords, type WaitReason } from "./reason-words";

type Forecast = RouterOutputs["observations"]["forecast"];

/**
 * Other observations' changes move this one's start too, and not every one reaches this reader as an
 * event (an edit of someone else's observation publishes none): the forecast is read again each
 * minute and when the window regains focus, besides at once on any status change it hears of.
 */
const REFRESH_MS = 60_000;

const useForecast = (id: string, enabled: boolean) =>
  useQuery(trpc.observations.forecast.queryOptions({ id }, { enabled, staleTime: 0, refetchInterval: REFRESH_MS, refetchOnWindowFocus: true }));

/** "tonight" for the night in progress or the coming one, "tomorrow night", else "the night of Sat 28 Nov". */
function whichNight(night: string, zone: string): string {
  const today = zoneDate(new Date(), zone);
  if (night === today || night === shiftDate(today, -1)) return "tonight";
  if (night === shiftDate(today, 1)) return "tomorrow night";
  return `the night of ${dayName(night)}`;
}

/** What each observatory-wide hold means for the forecast, which assumes none. */
const assumptions: Partial<Record<WaitReason["code"], string>> = {
  OFFLINE: "The observatory is offline: this assumes it comes back.",
  DISPATCH_OFF: "Dispatch is switched off at the observatory: this assumes it is switched back on.",
  PLUGIN_OUTDATED: "The observatory's plugin needs an update: this assumes it gets one.",
  UNSAFE: "The observatory reports unsafe conditions or a weather hold: this assumes they clear.",
};

function forecastText(forecast: Forecast, observation: Observation): string {
  const zone = forecast.timeZone;
  const clock = (at: string) => zoneClock(at, zone);
  const where = zoneLabel(zone, forecast.expectedStart ?? new Date());
  if (forecast.expectedStart && forecast.expectedEnd) {
    const end = `expected to end around ${clock(forecast.expectedEnd)}`;
    if (observation.status === "pending") {
      const night = forecast.night ? `, ${whichNight(forecast.night, zone)}` : "";
      return `Expected to start around ${clock(forecast.expectedStart)} (${where})${night}; ${end}.`;
    }
    // It may have been waiting or running for days: the date goes with any start outside the last hours.
    const since = zoneMoment(forecast.expectedStart, zone, { from: Date.now() - 12 * 3_600_000, to: Date.now() });
    return `${observation.status === "assigned" ? "Assigned" : "Under way"} since ${since} (${where}); ${end}.`;
  }
  if (!forecast.blockedBy) return "Not in the plan of the coming week.";
  const { constraints } = observation;
  const reason = reasonInWords(forecast.blockedBy, {
    when: (iso) => zoneMoment(iso, zone, comingHours()),
    plan: true,
    twilight: observation.bypassDarkness ? undefined : constraints.twilight,
    limits: { minAltitude: constraints.minAltitude, maxAirmass: constraints.maxAirmass, moonDistance: constraints.moonDistance },
  });
  const moment = forecast.blockedBy.until ?? forecast.blockedBy.at;
  return `Not expected to start in the coming week: ${lowerFirst(reason)}${moment ? ` (${where})` : ""}.`;
}

/**
 * When a pending, assigned or running observation is expected to start and end, on the observatory's
 * clock, or why it is not in the plan and when that ends, and where the network plan runs it (`PlanPlace`);
 * followed live (see REFRESH_MS). `observatoryName`: an observatory's name, undefined for one the reader cannot view.
 */
export function ForecastLine({ observation, observatoryName }: { observation: Observation; observatoryName(id: string): string | undefined }) {
  useTimeDisplay();
  const open = observation.status === "pending" || activeStatuses.includes(observation.status);
  const forecast = useForecast(observation.id, open);
  if (!open || !forecast.data) return null;
  return (
    <div aria-live="polite" className="mb-4 flex flex-col gap-1 rounded-md bg-white p-3 text-sm text-slate-700 shadow-sm ring-1 ring-slate-200">
      <p className="flex items-start gap-2">
        <Clock aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-indigo-600" />
        <span>{forecastText(forecast.data, observation)}</span>
      </p>
      <PlanPlace observation={observation} forecast={forecast.data} observatoryName={observatoryName} />
      {(forecast.data.observatoryReasons ?? []).map((reason) =>
        assumptions[reason.code] ? (
          <p key={reason.code} className="pl-6 text-xs text-slate-500">
            {assumptions[reason.code]}
          </p>
        ) : null,
      )}
    </div>
  );
}
