import { useEffect } from "react";
import { useMutation } from "@tanstack/react-query";
import { Time } from "../../components/Time";
import { summarizeError } from "../../lib/errors";
import { trpc } from "../../trpc";
import { comingHours, zoneLabel, zoneMoment } from "../../lib/zone-time";
import { queueBlockLabels } from "../labels";
import { lowerFirst, reasonInWords, type WaitReason } from "../reason-words";
import type { ObservationInput } from "./draft";

/** Why it would not run, in the queue's words ("never rises above 30° from this site (highest 21°)"), on the observatory's clock. */
function blockedText(reason: WaitReason, zone: string, input: ObservationInput): string {
  const constraints = input.constraints;
  const words = reasonInWords(reason, {
    when: (iso) => zoneMoment(iso, zone, comingHours()),
    plan: true,
    twilight: input.bypassDarkness ? undefined : (constraints?.twilight ?? "astronomical"),
    limits: { minAltitude: constraints?.minAltitude ?? 30, maxAirmass: constraints?.maxAirmass ?? null, moonDistance: constraints?.moonDistance ?? null },
  });
  const moment = reason.until ?? reason.at;
  return `${lowerFirst(words)}${moment ? ` (${zoneLabel(zone, moment)})` : ""}`;
}

/** The forecast's answer (`observations.forecastDraft`). */
export type DraftForecast = {
  timeZone: string;
  expectedStart: string | null;
  expectedEnd: string | null;
  observatoryReasons: Array<{ code: string }>;
  blockedBy: WaitReason | null;
};

/** The forecast in words: waiting, failed, when it would start, or why it would not within the week. */
export function ForecastText(props: { input: ObservationInput; pending: boolean; error: unknown; data: DraftForecast | undefined }) {
  const { input, data } = props;
  if (props.pending) return <span className="text-slate-500">Running the night plan with it…</span>;
  if (props.error) return <span className="text-slate-500">No forecast: {summarizeError(props.error).message}</span>;
  if (data?.expectedStart)
    return (
      <>
        Expected to start around <strong>{<Time iso={data.expectedStart} zone={data.timeZone} />}</strong>, ending around{" "}
        <Time iso={data.expectedEnd} zone={data.timeZone} />, if submitted now
        {data.observatoryReasons.length > 0 ? (
          <span className="text-slate-500">
            {" "}
            (assuming the observatory is ready: now {data.observatoryReasons.map((reason) => queueBlockLabels[reason.code] ?? reason.code).join(", ")})
          </span>
        ) : null}
        .
      </>
    );
  if (data?.blockedBy) return <>Not within the next week: {blockedText(data.blockedBy, data.timeZone, input)}.</>;
  return data ? "Not within the next week." : null;
}

/**
 * When the observation would run if submitted now (`POST /observations/forecast`: the night plan
 * with it in the queue after every pending one of its priority), or why it would wait and until when.
 * Asked again whenever the review's input changes.
 */
export function ForecastSlot({ input }: { input: ObservationInput }) {
  const forecast = useMutation(trpc.observations.forecastDraft.mutationOptions());
  const key = JSON.stringify(input);
  const { mutate } = forecast;
  useEffect(() => {
    mutate(JSON.parse(key) as ObservationInput);
  }, [key, mutate]);
  return (
    <section aria-label="Forecast" className="min-w-0">
      <h3 className="border-b border-slate-100 pb-1 text-sm font-semibold text-slate-900">Forecast</h3>
      <p className="mt-2 text-sm text-slate-900" aria-live="polite">
        <ForecastText input={input} pending={forecast.isPending} error={forecast.isError ? forecast.error : null} data={forecast.data} />
      </p>
    </section>
  );
}
