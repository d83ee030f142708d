import type { ReactNode } from "react";
import { Badge } from "../components/Badge";
import { Card } from "../components/Card";
import { Time } from "../components/Time";
import { formatDateTime } from "../lib/format";
import { OnlineBadge, PermissionBadges } from "./PermissionBadges";
import type { Observatory } from "./permissions";

function Row({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="grid gap-1 py-3 sm:grid-cols-3 sm:gap-4">
      <dt className="text-sm font-medium text-slate-500">{term}</dt>
      <dd className="text-sm text-slate-900 sm:col-span-2">{children}</dd>
    </div>
  );
}

export function ObservatoryOverview({ observatory, ownerName }: { observatory: Observatory; ownerName: string }) {
  const { connection, location } = observatory;
  return (
    <Card title="Overview">
      <dl className="-my-3 divide-y divide-slate-100">
        <Row term="Owner">
          {ownerName} <span className="text-slate-500">({observatory.owner.kind === "organization" ? "organization" : "user"})</span>
        </Row>
        <Row term="Connection">
          <span className="flex flex-wrap items-center gap-2">
            <OnlineBadge online={connection.online} />
            <span className="text-slate-500">
              {connection.lastSeenAt ? (
                <>
                  Last seen <Time iso={connection.lastSeenAt} zone={observatory.timeZone} />
                </>
              ) : (
                "Never connected"
              )}
            </span>
          </span>
        </Row>
        <Row term="Safety">
          {observatory.conditions ? (
            <span className="flex flex-wrap items-center gap-2">
              <Badge tone={observatory.conditions.safe ? "emerald" : "red"}>{observatory.conditions.safe ? "Safe" : "Unsafe"}</Badge>
              {observatory.conditions.weatherHold ? <Badge tone="amber">Weather hold</Badge> : null}
              <span className="text-slate-500">{[observatory.conditions.safetyReason, observatory.conditions.weatherReason].filter(Boolean).join(" · ")}</span>
            </span>
          ) : (
            <span className="text-slate-400">Not reported</span>
          )}
        </Row>
        <Row term="Filters">
          {observatory.filters ? (
            <ul aria-label="Filters its plugin reports" className="flex flex-wrap gap-1.5">
              {observatory.filters.map((filter) => (
                <li key={filter}>
                  <Badge tone="slate">{filter}</Badge>
                </li>
              ))}
            </ul>
          ) : (
            <span className="text-slate-400">Not reported: observations may ask for any filter</span>
          )}
        </Row>
        <Row term="Plugin version">{connection.pluginVersion ?? <span className="text-slate-400">Unknown</span>}</Row>
        <Row term="Dispatch">{observatory.dispatchEnabled ? "Enabled: observations are sent to the telescope" : "Paused: observations wait in the queue"}</Row>
        <Row term="Location">
          {location ? (
            <span className="font-mono text-xs">
              {location.latitude.toFixed(4)}°, {location.longitude.toFixed(4)}° · {location.elevation} m
            </span>
          ) : (
            <span className="text-slate-400">Not set</span>
          )}
        </Row>
        <Row term="Time zone">
          {observatory.timeZone}
          {observatory.timeZone === observatory.locationTimeZone && observatory.location ? <span className="text-slate-500"> (from its location)</span> : null}
        </Row>
        <Row term="Timing">
          Slew {observatory.settings.slewSeconds} s per target · readout {observatory.settings.readoutSeconds} s per exposure
        </Row>
        <Row term="Your permissions">{observatory.myPermissions ? <PermissionBadges permissions={observatory.myPermissions} /> : "—"}</Row>
        <Row term="Created">{formatDateTime(observatory.createdAt)}</Row>
      </dl>
    </Card>
  );
}
