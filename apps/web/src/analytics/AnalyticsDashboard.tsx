import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { observationStatuses } from "@meridian/rules";
import { Card } from "../components/Card";
import { formatDateTime } from "../lib/format";
import { formatBytes, observationStatusInfo } from "../observations/labels";
import type { RouterOutputs } from "../organizations/types";
import { FrameCharts } from "./FrameCharts";
import { HorizontalBars } from "./HorizontalBars";

export type Analytics = RouterOutputs["analytics"]["system"];

const figure = (value: number) => value.toLocaleString();

/** The six figures, observations by status, the last 30 days, hours observed and frames analysed, as cards and charts. */
export function AnalyticsDashboard({ analytics }: { analytics: Analytics }) {
  const system = analytics.scope === "system";
  const stats = [
    { label: "Observatories", value: figure(analytics.observatoryCount) },
    { label: "Observations", value: figure(analytics.observationCount), hint: "in every status" },
    { label: system ? "Users" : "Observers", value: figure(analytics.userCount), hint: system ? "accounts" : "owners of their observations" },
    { label: "Active organizations", value: figure(analytics.organizationCount), hint: "with an observatory or a project" },
    {
      label: "Success rate",
      value: analytics.successRate === null ? "—" : `${(analytics.successRate * 100).toFixed(1)} %`,
      hint: "completed of those that ended",
    },
    { label: "Storage", value: formatBytes(analytics.storageBytes), hint: "files of observations" },
  ];
  const byStatus = observationStatuses.map((status) => ({ name: observationStatusInfo[status].label, value: analytics.observationsByStatus[status] ?? 0 }));
  const daily = analytics.daily.map((day) => ({ ...day, date: day.date.slice(5) }));
  return (
    <div className="flex flex-col gap-6">
      <dl className="grid grid-cols-2 gap-4 lg:grid-cols-3">
        {stats.map((stat) => (
          <div key={stat.label} className="rounded-lg bg-white p-4 shadow-sm ring-1 ring-slate-200">
            <dt className="text-sm text-slate-500">{stat.label}</dt>
            <dd className="mt-1 text-2xl font-semibold text-slate-900 tabular-nums">{stat.value}</dd>
            {stat.hint ? <dd className="text-xs text-slate-500">{stat.hint}</dd> : null}
          </div>
        ))}
      </dl>
      <Card title="Observations by status">
        {/* Bars across, labels down the side: eleven statuses' names stay whole and apart at any width, a phone's too. */}
        <HorizontalBars label="Observations by status" bars={byStatus} labelWidth={140} series="Observations" color="#4f46e5" />
      </Card>
      <Card title="The last 30 days" description="Observations created, and moves to completed or failed, per day (UTC).">
        <figure aria-label={`Daily counts over the last ${analytics.daily.length} days`} className="h-72">
          <ResponsiveContainer width="100%" height="100%">
            <LineChart data={daily} margin={{ top: 8, right: 8, bottom: 8, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="date" tick={{ fontSize: 11 }} minTickGap={16} />
              <YAxis allowDecimals={false} width={40} tick={{ fontSize: 11 }} />
              <Tooltip />
              <Legend />
              <Line type="monotone" dataKey="created" name="Created" stroke="#4f46e5" dot={false} />
              <Line type="monotone" dataKey="completed" name="Completed" stroke="#059669" dot={false} />
              <Line type="monotone" dataKey="failed" name="Failed" stroke="#dc2626" dot={false} />
            </LineChart>
          </ResponsiveContainer>
        </figure>
      </Card>
      <HoursChart
        title="Hours observed per observatory"
        bars={analytics.hoursByObservatory.map((entry) => ({ name: entry.observatoryName ?? entry.observatoryId, hours: entry.hours }))}
        empty="No observatory has observed in the last 30 days."
      />
      <HoursChart
        title="Hours observed per project"
        bars={analytics.hoursByProject.map((entry) => ({ name: entry.projectName ?? entry.projectId, hours: entry.hours }))}
        empty="No project has observed in the last 30 days."
      />
      <FrameCharts analytics={analytics} />
      <p className="text-xs text-slate-500">Figures as of {formatDateTime(analytics.computedAt)}; they are refreshed every minute.</p>
    </div>
  );
}

/** Hours in progress over the last 30 days (as allocations charge them), one horizontal bar each, most first. */
function HoursChart({ title, bars, empty }: { title: string; bars: Array<{ name: string; hours: number }>; empty: string }) {
  return (
    <Card title={title} description="Time in progress over the last 30 days, as allocations charge it.">
      {bars.length === 0 ? (
        <p className="text-sm text-slate-500">{empty}</p>
      ) : (
        <HorizontalBars
          label={title}
          bars={bars.map((bar) => ({ name: bar.name, value: bar.hours }))}
          labelWidth={120}
          unit=" h"
          series="Hours"
          color="#0284c7"
        />
      )}
    </Card>
  );
}
