import type { ReactNode } from "react";
import { Card } from "../components/Card";
import type { RouterOutputs } from "../organizations/types";
import { HorizontalBars } from "./HorizontalBars";

type FrameAnalytics = Pick<RouterOutputs["analytics"]["system"], "framesAnalysed" | "framesFailed" | "framesAcceptedShare" | "framesByObservatory">;

const percent = (share: number) => Math.round(share * 1000) / 10;
const hundredths = (value: number) => Math.round(value * 100) / 100;

/**
 * Frames over the last 30 days: how many were analysed, the share accepted, and per observatory
 * the frames analysed, the share accepted and the median FWHM (seeing and focus), as bars across
 * with the observatories' names beside them, so long names stay whole on a phone.
 */
export function FrameCharts({ analytics }: { analytics: FrameAnalytics }) {
  const rows = analytics.framesByObservatory;
  const name = (row: (typeof rows)[number]) => row.observatoryName ?? row.observatoryId;
  const analysed = rows.map((row) => ({ name: name(row), value: row.analysed }));
  const accepted = rows.flatMap((row) => (row.acceptedShare === null ? [] : [{ name: name(row), value: percent(row.acceptedShare) }]));
  const fwhm = rows.flatMap((row) => (row.medianFwhmArcsec === null ? [] : [{ name: name(row), value: hundredths(row.medianFwhmArcsec) }]));
  const figures = [
    { label: "Frames analysed", value: analytics.framesAnalysed.toLocaleString() },
    { label: "Accepted", value: analytics.framesAcceptedShare === null ? "—" : `${percent(analytics.framesAcceptedShare)} %` },
    { label: "Could not be analysed", value: analytics.framesFailed.toLocaleString() },
  ];
  return (
    <Card title="Frames over the last 30 days" description="Frames whose analysis ended in the last 30 days (UTC), graded by their projects' settings.">
      <div className="flex flex-col gap-6">
        <dl className="grid grid-cols-1 gap-4 sm:grid-cols-3">
          {figures.map((figure) => (
            <div key={figure.label}>
              <dt className="text-sm text-slate-500">{figure.label}</dt>
              <dd className="mt-1 text-xl font-semibold text-slate-900 tabular-nums">{figure.value}</dd>
            </div>
          ))}
        </dl>
        {rows.length === 0 ? (
          <p className="text-sm text-slate-500">No frame was analysed in the last 30 days.</p>
        ) : (
          <>
            <FrameChart title="Frames analysed per observatory">
              <HorizontalBars label="Frames analysed per observatory" bars={analysed} labelWidth={120} series="Frames" color="#4f46e5" />
            </FrameChart>
            <FrameChart title="Accepted share per observatory">
              {accepted.length === 0 ? (
                <p className="text-sm text-slate-500">No frame was analysed to the end: none could be graded.</p>
              ) : (
                <HorizontalBars
                  label="Accepted share per observatory"
                  bars={accepted}
                  labelWidth={120}
                  unit=" %"
                  series="Accepted"
                  color="#059669"
                  domain={[0, 100]}
                />
              )}
            </FrameChart>
            <FrameChart title="Median FWHM per observatory" description="The stars' full width at half maximum, in arcseconds: smaller is sharper.">
              {fwhm.length === 0 ? (
                <p className="text-sm text-slate-500">No analysed frame had stars to measure.</p>
              ) : (
                <HorizontalBars label="Median FWHM per observatory" bars={fwhm} labelWidth={120} unit="″" series="Median FWHM" color="#0284c7" />
              )}
            </FrameChart>
          </>
        )}
      </div>
    </Card>
  );
}

function FrameChart({ title, description, children }: { title: string; description?: string; children: ReactNode }) {
  return (
    <section className="flex flex-col gap-2">
      <h3 className="text-sm font-semibold text-slate-900">{title}</h3>
      {description ? <p className="text-sm text-slate-500">{description}</p> : null}
      {children}
    </section>
  );
}
